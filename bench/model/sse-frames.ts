/** Splits an SSE byte stream (fed as decoded text) into (event, data) pairs. */
export function sseFrames(onFrame: (event: string, data: string) => void): (chunk: string) => void {
  let buffer = "";
  return (chunk) => {
    buffer += chunk;
    let start = 0;
    for (let end = buffer.indexOf("\n\n"); end !== -1; start = end + 2, end = buffer.indexOf("\n\n", start)) {
      let event = "message";
      let data = "";
      for (const line of buffer.slice(start, end).split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data = line.slice(6);
        else if (line.startsWith("data:")) data = line.slice(5);
      }
      if (data) onFrame(event, data);
    }
    buffer = buffer.slice(start);
  };
}
