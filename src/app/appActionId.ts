/**
 * A fresh `actionId` for one call the App makes through the host (a Story button, a panel
 * link); a retry of the same call would reuse it, so the gateway replays rather than applies it.
 */
let actionCounter = 0;

export function newActionId(): string {
  const random = globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  return `app-${random}-${++actionCounter}`;
}
