/**
 * What servers say changed in what they offer: a list (`notifications/{resources,prompts}/
 * list_changed`) or one subscribed resource (`notifications/resources/updated`). The pool's
 * handlers report here; the cached listings, the chat and a program's callback listen.
 */
import { FanOut } from '../util/fan-out.js';

/** One change a server announced. A tagged union: switch on `type`. */
export type OfferingsChange =
  /** The server's list of resources (templates included) or of prompts changed. */
  | { readonly type: 'list-changed'; readonly server: string; readonly list: 'resources' | 'prompts' }
  /** A resource this client subscribed to changed; read it again for its new contents. */
  | { readonly type: 'resource-updated'; readonly server: string; readonly uri: string };

export type OfferingsChangeListener = (change: OfferingsChange) => void;

/** The servers' announced changes, to every listener (a listener's failure is its own). */
export class OfferingsChanges extends FanOut<OfferingsChange> {}
