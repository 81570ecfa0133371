type SseEvent = { id: number; event: string; data: unknown };
/** Reads SSE frames until `count` events of the wanted types (that `counts`) arrived, then aborts. */
export async function readEvents(
  res: Response, count: number, abort: AbortController,
  types = ['message', 'like', 'match', 'read', 'chat_deleted'], counts: (event: SseEvent) => boolean = () => true,
) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  const deadline = Date.now() + 5000;
  while (events.filter(counts).length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = Object.fromEntries(frame.split('\n').filter((l) => !l.startsWith(':') && l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
      if (types.includes(lines.event)) events.push({ id: Number(lines.id), event: lines.event, data: JSON.parse(lines.data) });
      end = buffer.indexOf('\n\n');
    }
  }
  abort.abort();
  return events;
}
