// Splits a V8 CPU profile (`node --cpu-prof`) of the sandbox server into the stages of a request. Each sample is
// given to the stage of the innermost frame on its stack that a rule below names (a function, or a file); frames
// no rule names (Node's streams, promises, natives) take the stage of the code that called them. So a JSON.stringify
// called by the request log counts for the request log, and one called by the reply's serializer for the answer.
// The server runs from the compiled sources (bench/stage-server.mjs), whose files name the stage.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Stages in the order the table shows them: a request's way through the server, then what is no one stage's. */
export const STAGES = [
  ['guard', 'guard (Host, Origin, Sec-Fetch-Site, content type)'],
  ['body', 'body parse (bounded read, UTF-8, JSON)'],
  ['spec', 'spec checks (validation, ids, clock, route handler)'],
  ['store', 'store (in-memory state, indexes, key digest, record check)'],
  ['journal', 'journal line (JSON line, append, fdatasync calls)'],
  ['verify', 'verify journal (observation, its entry)'],
  ['snapshot', 'snapshot (compaction in the background)'],
  ['log', 'request log (record, console line, batched write)'],
  ['sse', 'SSE fan-out (change feed, event streams)'],
  ['answer', 'answer (serialize, headers, reply)'],
  ['socket', 'socket writes (writev: the kernel sending answers)'],
  ['http', 'HTTP parsing, routing, hooks (Node, Fastify)'],
  ['callbacks', 'callbacks (delivery queue)'],
  ['gc', 'garbage collection (main thread)'],
  ['loop', 'event loop, promises, timers, natives'],
]

const FUNCTION_RULES = [
  // Most specific first: these are functions of files another rule names as a whole.
  [/\/dist\/src\/store\/store\.js$/, /^(observeVerify)$/, 'verify'],
  [/\/dist\/src\/store\/store\.js$/, /^(journalLine)$/, 'journal'],
  // The data file's engine makes the journal's lines in its write.
  [/\/dist\/src\/store\/file\/engine\.js$/, /^write$/, 'journal'],
  [/\/dist\/src\/store\/state\.js$/, /^(addVerify|verifiesOf)$/, 'verify'],
  // The app's request-log hook (src/server/app.ts).
  [/\/dist\/src\/server\/app\.js$/, /^logAnswered$/, 'log'],
  [/^$/, /^writev$/, 'socket'],
  [/^$/, /^\(garbage collector\)$/, 'gc'],
]

const FILE_RULES = [
  [/\/dist\/src\/server\/guard\.js$|\/dist\/src\/domain\/request-guard\.js$/, 'guard'],
  [/\/dist\/src\/http\/(body|bounded-body)\.js$|\/dist\/src\/domain\/json-body\.js$|\/secure-json-parse\/|\/fastify\/lib\/content-type-parser\.js$/, 'body'],
  [/\/dist\/src\/domain\/verify-journal\.js$/, 'verify'],
  [/\/dist\/src\/store\/(file\/)?(journal|fsutil)\.js$/, 'journal'],
  [/\/dist\/src\/store\/(file\/)?snapshot\.js$|\/lowdb\//, 'snapshot'],
  [/\/dist\/src\/store\//, 'store'],
  // The service's own code and the route handlers; the domain rules and the clock they call count with them (and
  // with the store, for the record check before a write). Fastify's validation of the route's schema too.
  [/\/dist\/src\/(service\/sandbox|service\/locks|server\/routes\/api)\.js$|\/fastify\/lib\/validation\.js$/, 'spec'],
  [/\/dist\/src\/inspector\/(request-log|request-entry)\.js$|\/dist\/src\/cli\/batched-lines\.js$|\/bench\/stage-server\.mjs$/, 'log'],
  [/\/dist\/src\/inspector\/(changes|control-routes)\.js$|\/dist\/src\/http\/sse\.js$/, 'sse'],
  [/\/dist\/src\/callbacks\//, 'callbacks'],
  [/\/fastify\/lib\/(reply|error-handler|wrap-thenable)\.js$|\/dist\/src\/http\/errors\.js$|^node:_http_outgoing$/, 'answer'],
  [/\/fastify\/|\/find-my-way\/|\/avvio\/|\/toad-cache\/|\/@fastify\/|^node:_http_(server|common|incoming)$/, 'http'],
]

// Functions without a name, known by the text of the line they start on: the app's serializer, and its request-log
// hook as it was written before it had a name.
const LINE_RULES = [
  [/\/dist\/src\/server\/app\.js$/, /JSON\.stringify\(data\)/, 'answer'],
  [/\/dist\/src\/server\/app\.js$/, /addHook\('onResponse'/, 'log'],
]

const sources = new Map()
function lineOf(url, line) {
  if (!sources.has(url)) {
    let lines = []
    try {
      lines = readFileSync(fileURLToPath(url), 'utf8').split('\n')
    } catch {
      // not a file
    }
    sources.set(url, lines)
  }
  return sources.get(url)[line] ?? ''
}

function stageOfFrame(frame) {
  const { url, functionName, lineNumber } = frame
  for (const [file, fn, stage] of FUNCTION_RULES) if (file.test(url) && fn.test(functionName)) return stage
  if (url === '') return undefined
  for (const [file, text, stage] of LINE_RULES) if (file.test(url) && text.test(lineOf(url, lineNumber))) return stage
  if (url === '') return undefined
  for (const [file, stage] of FILE_RULES) if (file.test(url)) return stage
  return undefined
}

/**
 * Samples per stage between `from` and `to` (µs on the profile's clock: process.hrtime's), idle ones left out.
 * Returns { samples, busy, stages: { [stage]: count } }.
 */
export function stagesOf(profile, from = -Infinity, to = Infinity) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const memo = new Map()
  const stageOf = (id) => {
    if (memo.has(id)) return memo.get(id)
    let stage = 'loop'
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const found = stageOfFrame(nodes.get(at).callFrame)
      if (found) {
        stage = found
        break
      }
    }
    memo.set(id, stage)
    return stage
  }
  const stages = Object.fromEntries(STAGES.map(([k]) => [k, 0]))
  let samples = 0
  let busy = 0
  let t = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]
    if (t < from || t > to) continue
    samples++
    const name = nodes.get(profile.samples[i]).callFrame.functionName
    if (name === '(idle)') continue
    busy++
    stages[stageOf(profile.samples[i])]++
  }
  return { samples, busy, stages }
}
