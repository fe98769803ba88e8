/**
 * Bun's WebSocket topics for a host that has none of its own (Node's `ws`, a
 * Durable Object): each socket knows its topics, and the host's map knows each
 * topic's sockets, so `publish` reaches them and a closed socket leaves all.
 */
export abstract class TopicSocket<S> {
  readonly topics = new Set<string>();

  constructor(private readonly all: Map<string, Set<S>>) {}

  subscribe(topic: string): void {
    this.topics.add(topic);
    let set = this.all.get(topic);
    if (!set) this.all.set(topic, (set = new Set()));
    set.add(this as unknown as S);
  }

  unsubscribe(topic: string): void {
    this.topics.delete(topic);
    const set = this.all.get(topic);
    set?.delete(this as unknown as S);
    if (set?.size === 0) this.all.delete(topic);
  }

  /** leaves every topic (the connection ended) */
  drop(): void {
    for (const t of [...this.topics]) this.unsubscribe(t);
  }
}
