/** One client's key, as stored. */
export interface IdempotencyRecordId {
  clientId: string;
  keyHash: Buffer;
}

export interface StoredResponse {
  status: number;
  /** The JSON body exactly as first sent. */
  body: string;
}

/** Outcome of trying to take a key for a request. */
export type Reservation =
  | { kind: "reserved" }
  | { kind: "in_progress"; requestHash: Buffer }
  | { kind: "completed"; requestHash: Buffer; response: StoredResponse };

export interface ReserveInput extends IdempotencyRecordId {
  requestHash: Buffer;
  now: Date;
  expiresAt: Date;
  /** Until when this request holds the key; after that a retry of the same request may take over. */
  lockedUntil: Date;
}

/** Where Idempotency-Key records live; the domain of src/idempotency, implemented per technology. */
export interface IdempotencyStore {
  /**
   * Takes the key unless another live request holds it or a response is stored for it. An expired
   * record counts as absent; an in-progress record whose lease ran out is taken over by the same request.
   */
  reserve(input: ReserveInput): Promise<Reservation>;
  complete(id: IdempotencyRecordId, response: StoredResponse): Promise<void>;
  /** Forgets the key, so it can be used again (the request failed and nothing was stored). */
  release(id: IdempotencyRecordId): Promise<void>;
  /** Deletes expired records; returns how many. */
  pruneExpired(now: Date): Promise<number>;
}
