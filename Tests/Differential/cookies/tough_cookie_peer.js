// tough-cookie (Debian's node-tough-cookie, the RFC 6265 reference implementation for Node) as
// a peer for HTTPCookiesTests' differential test. Reads cases as JSON on stdin:
// [[{"url": ..., "setCookie": [...]}, ...], ...]; for each step, records the Cookie field the
// jar gives the step's URL, then stores the step's Set-Cookie fields for that URL. Writes the
// fields as JSON on stdout: one list per case, one entry per step (null for none).
'use strict';
const tough = require('tough-cookie');

let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const results = JSON.parse(input).map((steps) => {
    const jar = new tough.CookieJar();
    return steps.map((step) => {
      const sent = jar.getCookieStringSync(step.url);
      for (const value of step.setCookie) {
        jar.setCookieSync(value, step.url, { ignoreError: true });
      }
      return sent === '' ? null : sent;
    });
  });
  process.stdout.write(JSON.stringify(results));
});
