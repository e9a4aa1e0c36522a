/**
 * Serialised response bodies, least recently used first out. A benchmark that walks every page of
 * 10,000 apps must not keep them all, so the cache is bounded by total size, not by entry count.
 */
export class BodyCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  constructor(private readonly maxChars = 32 * 1024 * 1024) {}

  get(key: string): string | undefined {
    const body = this.entries.get(key);
    if (body !== undefined) {
      // Re-insert so Map order is recency order and the first key is the eviction candidate.
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  set(key: string, body: string): void {
    if (body.length > this.maxChars) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.size -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, body);
    this.size += body.length;
    while (this.size > this.maxChars) {
      const first = this.entries.keys().next();
      if (first.done) break;
      this.size -= (this.entries.get(first.value) as string).length;
      this.entries.delete(first.value);
    }
  }

  clear(): void {
    this.entries.clear();
    this.size = 0;
  }

  get count(): number {
    return this.entries.size;
  }
}
