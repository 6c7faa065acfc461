/**
 * The JSON lines `run` writes to a stream (stdout: info lines and metrics; stderr: warnings and errors), kept
 * instead of printed; the test runner's own messages pass on.
 */
export async function stdoutOf(run: () => Promise<unknown> | unknown, stream: NodeJS.WriteStream = process.stdout): Promise<string[]> {
  const writes: string[] = [];
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.startsWith('{') ? writes.push(chunk) > 0 : write(chunk, ...rest)) as typeof stream.write;
  try {
    await run();
  } finally {
    stream.write = write as typeof stream.write;
  }
  return writes;
}
