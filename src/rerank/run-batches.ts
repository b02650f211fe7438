/**
 * Runs planned batches with a bounded number in flight (p-limit): while onnxruntime computes one
 * batch on its threads, the JavaScript thread builds the next one's tensors.
 */
import pLimit from 'p-limit';

export async function runBatches<B>(batches: readonly B[], concurrency: number, fn: (batch: B) => Promise<void>): Promise<void> {
  const limit = pLimit(Math.max(1, Math.floor(concurrency)));
  await Promise.all(batches.map((b) => limit(() => fn(b))));
}
