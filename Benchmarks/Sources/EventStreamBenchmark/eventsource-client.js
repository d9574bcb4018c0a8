// The baselines of EventStreamBenchmark's client measurement: a text/event-stream read in
// node, its events counted.
//
//   NODE_PATH=/usr/share/nodejs node eventsource-client.js URL EXPECTED_EVENTS [eventsource|plain]
//
// eventsource (the default): Debian's node-eventsource (the `eventsource` package, 2.x).
// plain: node's http module and a minimal parser (lines cut at LF with Buffer.indexOf, only
// `data` and `id` read, no CR line ends, no BOM): roughly the least node can do, to show
// how much of node-eventsource's time is its own parser.
//
// Prints one JSON line: {"events", "dataLength", "lastEventId", "seconds", "cpuSeconds",
// "error"}. The time, wall and CPU (user + system of this process), runs from opening the
// stream to the last expected event (node's start-up is not counted); the stream is then
// closed. A stream that ends short is an error (exit status 1).
'use strict'

const http = require('http')

const [url, expectedText, mode = 'eventsource'] = process.argv.slice(2)
const expected = Number(expectedText)
if (!url || !(expected > 0) || !['eventsource', 'plain'].includes(mode)) {
  console.error('usage: node eventsource-client.js URL EXPECTED_EVENTS [eventsource|plain]')
  process.exit(2)
}

let events = 0
let dataLength = 0
let lastEventId = ''
let close = () => {}
const start = process.hrtime.bigint()
const cpuStart = process.cpuUsage()

function done (error) {
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const cpu = process.cpuUsage(cpuStart)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  close()
  console.log(JSON.stringify({ events, dataLength, lastEventId, seconds, cpuSeconds, error: error || null }))
  process.exit(error ? 1 : 0)
}

function shortBy (message) {
  return `the stream ended after ${events} of ${expected} events${message ? ': ' + message : ''}`
}

if (mode === 'eventsource') {
  const EventSource = require('eventsource')
  const source = new EventSource(url)
  close = () => source.close()
  source.onmessage = (event) => {
    events += 1
    dataLength += event.data.length
    lastEventId = event.lastEventId
    if (events === expected) done()
  }
  // At the end of the body EventSource reports an error and would reconnect: every
  // expected event has come before that, or the stream fell short.
  source.onerror = (event) => done(shortBy(event && event.message))
} else {
  const request = http.get(url, { headers: { Accept: 'text/event-stream' } }, (response) => {
    let rest = null
    let data = null
    let id = ''
    response.on('data', (chunk) => {
      const buffer = rest ? Buffer.concat([rest, chunk]) : chunk
      let lineStart = 0
      let lineEnd
      while ((lineEnd = buffer.indexOf(10, lineStart)) !== -1) {
        if (lineEnd === lineStart) {
          if (data !== null) {
            events += 1
            dataLength += data.length
            lastEventId = id
            data = null
            if (events === expected) return done()
          }
        } else {
          let colon = buffer.indexOf(58, lineStart)
          if (colon === -1 || colon > lineEnd) colon = lineEnd
          const field = buffer.toString('latin1', lineStart, colon)
          let valueStart = Math.min(colon + 1, lineEnd)
          if (valueStart < lineEnd && buffer[valueStart] === 32) valueStart += 1
          if (field === 'data') {
            const value = buffer.toString('utf8', valueStart, lineEnd)
            data = data === null ? value : data + '\n' + value
          } else if (field === 'id') {
            id = buffer.toString('utf8', valueStart, lineEnd)
          }
        }
        lineStart = lineEnd + 1
      }
      rest = lineStart < buffer.length ? buffer.subarray(lineStart) : null
    })
    response.on('end', () => done(shortBy()))
  })
  close = () => request.destroy()
  request.on('error', (error) => done(shortBy(error.message)))
}
