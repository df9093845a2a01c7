// The running product version: health's `version` and the OpenAPI document's info.version are this value.

import { readFileSync } from 'node:fs';

export const PRODUCT_VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
