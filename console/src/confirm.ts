// Asking before an action that removes something (a delete): the page's confirm dialog, answered by a button.

import { byId } from './dom.ts';

export function confirmAction(heading: string, text: string, action: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  byId('confirm-heading').textContent = heading;
  byId('confirm-text').textContent = text;
  byId('confirm-yes').textContent = action;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true }));
}
