// Reads the cases of a replay file from the fault server with Debian's node-eventsource
// (the W3C EventSource for Node.js) and prints, as JSON, the events each case gave:
// [[{"type", "data", "id"}, ...], ...]. Event types other than `message` and `tick`
// are not listened to.
// Usage: NODE_PATH=/usr/share/nodejs node sse_node.js BASE_URL FILE COUNT PAUSE
'use strict'
const EventSource = require('eventsource')
const [base, file, count, pause] = process.argv.slice(2)

function readCase (index) {
  return new Promise((resolve) => {
    const url = `${base}/replay?file=${encodeURIComponent(file)}&case=${index}&pause=${pause}`
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
      resolve(events)
    })
  })
}

(async () => {
  const results = []
  for (let index = 0; index < Number(count); index++) results.push(await readCase(index))
  process.stdout.write(JSON.stringify(results))
})()
