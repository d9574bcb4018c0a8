// Reads the cases of a replay file from the fault server with Debian's node-eventsource
// (the W3C EventSource for Node.js) and prints, as JSON, the events each case gave and the
// sizes of the body chunks the library was handed (its reading depends on where they were
// cut, which TCP decides): {"events": [[{"type", "data", "id"}, ...], ...],
// "chunks": [[size, ...], ...]}. Event types other than `message` and `tick` are not
// listened to.
// Usage: NODE_PATH=/usr/share/nodejs node sse_node.js BASE_URL FILE COUNT PAUSE
'use strict'
const http = require('http')
const EventSource = require('eventsource')
const [base, file, count, pause] = process.argv.slice(2)

// The library reads the body through the response's 'data' events: record their sizes.
let received = null
const emit = http.IncomingMessage.prototype.emit
http.IncomingMessage.prototype.emit = function (name, chunk, ...rest) {
  if (name === 'data' && received && chunk && chunk.length) received.push(chunk.length)
  return emit.call(this, name, chunk, ...rest)
}

function readCase (index) {
  return new Promise((resolve) => {
    const url = `${base}/replay?file=${encodeURIComponent(file)}&case=${index}&pause=${pause}`
    const chunks = []
    received = chunks
    const source = new EventSource(url)
    const events = []
    // The library emits only event types that have listeners: listen to every type the
    // test streams use.
    for (const type of ['message', 'tick']) {
      source.on(type, (event) => events.push({ type, data: event.data, id: event.lastEventId }))
    }
    source.on('error', () => {
      // The stream ended (the library would reconnect): this case is done.
      source.close()
      received = null
      resolve({ events, chunks })
    })
  })
}

(async () => {
  const results = { events: [], chunks: [] }
  for (let index = 0; index < Number(count); index++) {
    const { events, chunks } = await readCase(index)
    results.events.push(events)
    results.chunks.push(chunks)
  }
  process.stdout.write(JSON.stringify(results))
})()
