/** Bytes as Node's Buffer sees them, without a copy, for comparing and printing codec output. */
export const bufferOf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Whether two byte arrays hold the same bytes. */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(bufferOf(a), bufferOf(b)) === 0;
