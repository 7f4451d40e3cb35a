/**
 * A TransformStream over one of our push/finish coders. The coder (and the
 * wasm heap it holds) is made only when the first chunk arrives or the
 * stream ends, so a stream that is built and never used costs nothing; a
 * cancelled stream gives its heap back at once.
 *
 * @example
 * return coderStream(() => new BrotliDecoder(options));
 */
export interface PushCoder {
  push(chunk: Uint8Array): Uint8Array[];
  /** Ends the stream: the last output if there is any; throws if the input was incomplete. */
  finish(): Uint8Array[] | void;
  dispose(): void;
}

export function coderStream(open: () => PushCoder): TransformStream<Uint8Array, Uint8Array> {
  let coder: PushCoder | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      coder ??= open();
      for (const part of coder.push(chunk)) controller.enqueue(part);
    },
    flush(controller) {
      coder ??= open();
      for (const part of coder.finish() ?? []) controller.enqueue(part);
    },
    cancel() {
      coder?.dispose();
    },
  });
}
