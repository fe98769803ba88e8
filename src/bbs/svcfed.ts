/**
 * The SVCFED carrier's receiving end: where a bulletin in category SVCFED is
 * recognised on receipt and handed to the federation apply pipeline.
 *
 * storeMessage() calls receiveSvcfed() inside the transaction that stores the
 * bulletin. A registered receiver applies the frames in the bulletin's body;
 * if it throws, the transaction rolls back and the bulletin is refused whole
 * (not stored, not forwarded): "whole or not at all". Every gateway
 * registers the federation carrier's receiver at start
 * (src/fed/transports/svcfed.ts); without one, SVCFED bulletins are stored
 * (hidden from the human listing) and flooded onward, but nothing is applied.
 */
import type { Core } from "../core/core.ts";

export interface SvcfedBulletin {
  bid: string;
  from: string;
  /** the distribution area, e.g. WW */
  at: string | null;
  subject: string;
  /** the body exactly as received (LF line ends), without R: lines */
  body: string;
  /** partner BBS it came from; null when posted on this instance */
  receivedFrom: string | null;
}

/** Applies one SVCFED bulletin; throw (an AppError for a clear reason) to refuse it whole. */
export type SvcfedReceiver = (gw: Core, bulletin: SvcfedBulletin) => void;

declare module "../core/services.ts" {
  interface Services {
    /** the federation carrier's apply step for SVCFED bulletins, while it runs */
    svcfed: { receiver: SvcfedReceiver | null };
  }
}

/** The federation carrier registers its apply step here (one per gateway). */
export function setSvcfedReceiver(gw: Core, receiver: SvcfedReceiver | null): void {
  gw.services.svcfed.receiver = receiver;
}

/** Called for every SVCFED bulletin arriving from elsewhere; true when it was applied. */
export function receiveSvcfed(gw: Core, bulletin: SvcfedBulletin): boolean {
  const r = gw.services.svcfed.receiver;
  if (!r) return false;
  r(gw, bulletin);
  return true;
}
