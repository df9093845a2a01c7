// `hds webhooks add|list|remove|deliveries`: a Client's webhooks through the typed client, as lines a person reads
// or (--json) the service's answers as they are. `add` makes a secret when none is given and shows it once: the
// service never shows it again, and a secret typed on the command line is left in the shell's history.

import { randomBytes } from 'node:crypto';
import { Command, Option } from 'commander';
import type { SearchClient, Webhook, WebhookDelivery, WebhookRegistration } from '../../clients/typescript/src/index.ts';
import type { Paint } from './render.ts';

/** The events a webhook is for when `add` names none: every job outcome. */
export const WEBHOOK_EVENT_CHOICES = ['job.completed', 'job.failed', 'job.partial_failed', 'job.superseded'] as const;
/** Bytes of a secret `add` makes (hex: twice as many characters). */
export const GENERATED_SECRET_BYTES = 32;

export interface WebhookCommandIo {
  client: () => SearchClient;
  out: (text: string) => void;
  paint: Paint;
}

function webhookLine(webhook: Webhook, paint: Paint): string {
  return `${webhook.webhook_id}  ${webhook.url}  ${paint('dim', webhook.events.join(','))}\n`;
}

function deliveryLine(delivery: WebhookDelivery, paint: Paint): string {
  const state = delivery.status === 'delivered' ? paint('green', delivery.status) : delivery.status === 'failed' ? paint('red', delivery.status) : delivery.status;
  const answer = delivery.last_status_code === null ? (delivery.last_error ?? '-') : String(delivery.last_status_code);
  const next = delivery.next_attempt_at ? `  next ${delivery.next_attempt_at}` : '';
  return `${delivery.created_at}  ${delivery.event}  ${state}  attempts ${delivery.attempts}  ${answer}  job ${delivery.job_id}${next}\n`;
}

export function webhookCommands(io: WebhookCommandIo): Command {
  const json = (value: unknown) => io.out(`${JSON.stringify(value, null, 2)}\n`);
  const webhooks = new Command('webhooks').description("the Client's webhooks: job outcomes POSTed to a URL, signed");
  webhooks
    .command('add')
    .description('register a webhook (the secret is shown once)')
    .argument('<url>', 'where deliveries are POSTed (http or https)')
    .addOption(new Option('--event <event>', 'an outcome to deliver, repeatable (default: all)').choices(WEBHOOK_EVENT_CHOICES).argParser((event: string, previous: string[] = []) => [...previous, event]))
    .option('--secret <secret>', 'the signing secret (default: a random one, printed once)')
    .option('--json', 'print the webhook (and the secret) as JSON')
    .action(async (url: string, options: { event?: WebhookRegistration['events']; secret?: string; json?: boolean }) => {
      const generated = options.secret === undefined;
      const secret = options.secret ?? randomBytes(GENERATED_SECRET_BYTES).toString('hex');
      const events = options.event ?? [...WEBHOOK_EVENT_CHOICES];
      const webhook = await io.client().createWebhook({ url, events, secret });
      if (options.json) return json(generated ? { ...webhook, secret } : webhook);
      io.out(webhookLine(webhook, io.paint));
      if (generated) io.out(`secret ${secret}\n${io.paint('dim', 'keep it: deliveries are signed with it (X-Webhook-Signature), and it is not shown again')}\n`);
    });
  webhooks
    .command('list')
    .description("the Client's webhooks")
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const answer = await io.client().webhooks();
      if (options.json) return json(answer);
      if (answer.webhooks.length === 0) io.out('no webhooks\n');
      for (const webhook of answer.webhooks) io.out(webhookLine(webhook, io.paint));
    });
  webhooks
    .command('remove')
    .description('remove a webhook and its deliveries')
    .argument('<webhook_id>')
    .option('--json', 'print the answer as JSON')
    .action(async (webhookId: string, options: { json?: boolean }) => {
      const answer = await io.client().deleteWebhook(webhookId);
      if (options.json) return json(answer);
      io.out(`removed ${answer.webhook_id}\n`);
    });
  webhooks
    .command('deliveries')
    .description("a webhook's newest 100 deliveries, newest first")
    .argument('<webhook_id>')
    .option('--json', 'print the answer as JSON')
    .action(async (webhookId: string, options: { json?: boolean }) => {
      const answer = await io.client().webhookDeliveries(webhookId);
      if (options.json) return json(answer);
      if (answer.deliveries.length === 0) io.out('no deliveries\n');
      for (const delivery of answer.deliveries) io.out(deliveryLine(delivery, io.paint));
    });
  return webhooks;
}
