// npm run bench: measures the sandbox against references this script starts itself, writes
// bench/results/latest.json and prints a markdown table with one row per goal: measured value, reference, ratio,
// target and verdict. Every server and load generator is its own process.
//
// The create→verify flow is judged with wrk (a C load generator: bench/flow.lua), which leaves the CPU to the
// servers; the Node generator (bench/load.mjs) eats as much CPU as the server it loads, so its line flatters us
// and is kept only as a second figure.
//
// The server's CPU per flow is split into stages (bench/stages.mjs) from CPU profiles taken under the same load, of
// the server started from the compiled sources (bench/stage-server.mjs) and of the bare Fastify reference.
//
// Environment: BENCH_ROUNDS (alternating rounds per size, default 3), BENCH_SECONDS (measured seconds per
// round, default 3), BENCH_SIZES (stored payments, default 0,10000,100000), BENCH_ONLY (comma list of
// flow,stages,compaction,node,cold,cli,memory,callbacks,team), BENCH_COMPACTION_SIZE (stored payments of the
// compaction rounds, default 100000).
//
// compaction: the create→verify flow while the data file is compacted back to back (bench/compaction-server.mjs),
// against the same server compacting only when it would, alternating, at BENCH_COMPACTION_SIZE stored.
//
// team: the create→verify flow through a team sandbox (--store) with one and with two instances on one PostgreSQL
// (a cluster this script starts, fsync on, as a server runs), beside the data file; wrk's connections are split
// over the instances.
import { execFileSync, spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { seedDataFile } from './seed.mjs'
import { STAGES, stagesOf } from './stages.mjs'
import { postgresBin } from '../scripts/ensure-postgres.mjs'
import { startCluster } from '../scripts/postgres-cluster.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin', 'run.js')
const REFERENCE = join(ROOT, 'bench', 'reference-server.mjs')
const LOAD = join(ROOT, 'bench', 'load.mjs')
const WRK_SCRIPT = join(ROOT, 'bench', 'flow.lua')
const SERVER_ONLY = join(ROOT, 'bench', 'server-only.mjs')
const STAGE_SERVER = join(ROOT, 'bench', 'stage-server.mjs')
const COMPACTION_SERVER = join(ROOT, 'bench', 'compaction-server.mjs')
const RESULTS = join(ROOT, 'bench', 'results')

const env = process.env
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(env.BENCH_SECONDS ?? 3)
const SIZES = (env.BENCH_SIZES ?? '0,10000,100000').split(',').map(Number)
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : undefined
const CONNECTIONS = 32
const CHILD_ENV = { ...env, NO_COLOR: '1', CI: '1' }

const wants = (part) => !ONLY || ONLY.has(part)
const WRK = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return 'wrk'
  } catch (error) {
    // wrk prints its usage and exits 1 on --version: it is there.
    return error.code === 'ENOENT' ? undefined : 'wrk'
  }
})()
const median = (values) => {
  const v = values.filter((x) => typeof x === 'number').sort((a, b) => a - b)
  if (v.length === 0) return null
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2
}
const round = (x, digits = 2) => (x === null || x === undefined ? null : Number(x.toFixed(digits)))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const log = (line) => process.stderr.write(`${line}\n`)

// ── processes ─────────────────────────────────────────────────────────

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
    server.on('error', reject)
  })
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((r) => child.once('exit', () => r()))
}

async function kill(child) {
  child.kill('SIGKILL')
  await exited(child)
}

/** Starts a server process and resolves once it printed its JSON start record. */
function startProcess(args, { logLines = false } = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let logBytes = 0
  child.stderr.on('data', (c) => {
    if (logLines) logBytes += c.length
    else err += c.toString()
  })
  return new Promise((resolveStart, reject) => {
    child.stdout.on('data', (c) => {
      out += c.toString()
      try {
        const record = JSON.parse(out)
        resolveStart({ child, url: record.url, pid: child.pid, stderr: () => err, logBytes: () => logBytes })
      } catch {
        // the record is not complete yet
      }
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before starting:\n${err}`)))
  })
}

/** `pay sandbox start` as users run it (request log on), unless `quiet`; `durability` adds --durability. */
const startOurs = (dataFile, { quiet = false, port = 0, durability } = {}) =>
  startProcess(
    [BIN, 'sandbox', 'start', '--port', String(port), '--json', '--data', dataFile, ...(quiet ? ['--quiet'] : []), ...(durability ? ['--durability', durability] : [])],
    { logLines: !quiet },
  )
const startReference = (port = 0) => startProcess([REFERENCE, String(port)])

/** `pay sandbox start --store <url> --quiet`: an instance of a team sandbox. */
const startTeamInstance = (url) => startProcess([BIN, 'sandbox', 'start', '--port', '0', '--json', '--quiet', '--store', url])

/**
 * wrk -t2 -c32 with bench/flow.lua: a 1 s warm-up run, then the measured one; `before` and `after` run just before
 * and after the measured one.
 */
async function runWrk(url, { threads = 2, connections = CONNECTIONS, ...around } = {}) {
  const wrk = (seconds) =>
    new Promise((resolveRun, reject) => {
      const child = spawn(WRK, [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', '-s', WRK_SCRIPT, url], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      child.stdout.on('data', (c) => (out += c))
      child.stderr.on('data', (c) => (err += c))
      child.on('exit', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('{'))
        try {
          resolveRun(JSON.parse(line))
        } catch {
          reject(new Error(`wrk exited with ${code}: ${err || out}`))
        }
      })
    })
  await wrk(1)
  await around.before?.()
  const from = process.hrtime.bigint() / 1000n
  const r = await wrk(SECONDS)
  const to = process.hrtime.bigint() / 1000n
  await around.after?.()
  const seconds = r.durationUs / 1e6
  const ms = (us) => round(us / 1000, 3)
  return {
    flows: r.flows,
    flowsPerSecond: Math.round(r.flows / seconds),
    requestsPerSecond: Math.round(r.requests / seconds),
    errors: r.bad + r.socketErrors,
    ...(r.firstBad ? { firstError: r.firstBad } : {}),
    latencyMs: { all: { p50: ms(r.latencyUs.p50), p90: ms(r.latencyUs.p90), p99: ms(r.latencyUs.p99), max: ms(r.latencyUs.max) } },
    seconds: 1 + seconds,
    // When the measured run started and ended, in µs of process.hrtime (a CPU profile's clock).
    window: [Number(from), Number(to)],
  }
}

function runLoad(url) {
  const port = Number(new URL(url).port)
  const config = { port, connections: CONNECTIONS, warmupMs: 1000, durationMs: SECONDS * 1000 }
  return new Promise((resolveLoad, reject) => {
    const child = spawn(process.execPath, [LOAD, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.on('exit', (code) => {
      try {
        resolveLoad(JSON.parse(out))
      } catch {
        reject(new Error(`load generator exited with ${code}: ${out}`))
      }
    })
  })
}

async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMB: round(kb('VmRSS') / 1024, 1), peakRssMB: round(kb('VmHWM') / 1024, 1) }
}

/** CPU time (user + system) a process has used, in ms; with `thread`, that thread's alone (its pid: the main thread). */
async function cpuMs(pid, thread) {
  const stat = await readFile(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').catch(() => '')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

function get(url) {
  return new Promise((resolveGet) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolveGet(res.statusCode))
    })
    req.on('error', () => resolveGet(0))
    req.end()
  })
}

function post(url, body) {
  return new Promise((resolvePost, reject) => {
    const payload = JSON.stringify(body)
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolvePost(JSON.parse(text)))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** Wall time of one process run, in ms. */
function timeRun(args, cwd = ROOT) {
  return new Promise((resolveRun, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { cwd, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    child.stdout.resume()
    child.stderr.on('data', (c) => (err += c))
    child.on('exit', (code) => {
      const ms = performance.now() - t0
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`))
      else resolveRun(ms)
    })
  })
}

// ── setup ─────────────────────────────────────────────────────────────

const work = await mkdtemp(join(tmpdir(), 'pay-bench-'))
let runs = 0
/** A fresh copy of a seed file in its own folder (so each server starts from the same state). */
async function freshCopy(seedFile) {
  const dir = join(work, `run-${++runs}`)
  await mkdir(dir)
  const file = join(dir, 'data.json')
  await cp(seedFile, file)
  return file
}

const seeds = {}
async function seed(size) {
  if (!seeds[size]) {
    const file = join(work, `seed-${size}.json`)
    const t0 = performance.now()
    const { sample, bytes } = await seedDataFile(file, size)
    seeds[size] = { file, sample, bytes, seconds: round((performance.now() - t0) / 1000, 2) }
    log(`seeded ${size} payments (${(bytes / 1e6).toFixed(1)} MB) in ${seeds[size].seconds}s`)
  }
  return seeds[size]
}

function machine() {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  }
}

const results = {
  startedAt: new Date().toISOString(),
  machine: machine(),
  loadBefore: loadavg().map((x) => round(x)),
  config: { rounds: ROUNDS, seconds: SECONDS, sizes: SIZES, connections: CONNECTIONS },
}

// ── create→verify flow ────────────────────────────────────────────────

/**
 * Kinds of server: `ours` is `pay sandbox start` as users run it (request log on, acknowledged = durable),
 * `ours-quiet` the same with --quiet, `ours-os` the same with --durability os (acknowledged once the OS has the
 * write), `reference` the bare Fastify server.
 */
async function flowRound(kind, size, generator) {
  const { file } = await seed(size)
  const server = kind === 'reference' ? await startReference() : await startOurs(await freshCopy(file), { quiet: kind === 'ours-quiet', ...(kind === 'ours-os' ? { durability: 'os' } : {}) })
  try {
    const cpuBefore = await cpuMs(server.pid)
    const load = generator === 'wrk' ? await runWrk(server.url) : await runLoad(server.url)
    const cpu = (await cpuMs(server.pid)) - cpuBefore
    const memory = await memoryOf(server.pid)
    // Server CPU per flow, over warm-up and measurement alike: steadier than throughput on a busy machine.
    load.serverCpuUsPerFlow = Math.round((cpu * 1000) / (load.flowsPerSecond * (1 + SECONDS)))
    if (load.errors > 0) log(`  ${kind}: ${load.errors} errors, first: ${load.firstError}`)
    return { ...load, memory, ...(kind !== 'ours-quiet' && kind !== 'reference' ? { logMB: round(server.logBytes() / 1e6, 1) } : {}) }
  } finally {
    await kill(server.child)
  }
}

function summarize(rs) {
  return {
    flowsPerSecond: Math.round(median(rs.map((x) => x.flowsPerSecond))),
    requestsPerSecond: Math.round(median(rs.map((x) => x.requestsPerSecond))),
    p50: round(median(rs.map((x) => x.latencyMs.all.p50)), 3),
    p99: round(median(rs.map((x) => x.latencyMs.all.p99)), 3),
    errors: rs.reduce((n, x) => n + x.errors, 0),
    peakRssMB: median(rs.map((x) => x.memory.peakRssMB)),
    serverCpuUsPerFlow: median(rs.map((x) => x.serverCpuUsPerFlow)),
  }
}

/** Rounds alternate the kinds, so a busy moment of the machine falls on all of them alike. */
async function flowAt(size, kinds, generator) {
  await seed(size)
  const rounds = Object.fromEntries(kinds.map((k) => [k, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of kinds) {
      const result = await flowRound(kind, size, generator)
      rounds[kind].push(result)
      log(`${generator} ${size} ${kind} round ${r + 1}: ${result.flowsPerSecond} flows/s, ${result.serverCpuUsPerFlow} µs CPU/flow, p50 ${result.latencyMs.all.p50} ms, p99 ${result.latencyMs.all.p99} ms`)
    }
  }
  const entry = { size, generator, rounds }
  for (const kind of kinds) entry[kind] = summarize(rounds[kind])
  const ref = entry.reference
  for (const kind of kinds.filter((k) => k !== 'reference')) {
    entry[kind].ratio = round(entry[kind].flowsPerSecond / ref.flowsPerSecond)
    entry[kind].cpuRatio = round(ref.serverCpuUsPerFlow / entry[kind].serverCpuUsPerFlow)
  }
  return entry
}

async function benchFlow() {
  if (!WRK) {
    log('wrk is not installed (apt-get install wrk): the create→verify goal is not measured')
    return []
  }
  const out = []
  for (const size of SIZES) out.push(await flowAt(size, size === SIZES[0] ? ['ours', 'reference', 'ours-quiet', 'ours-os'] : ['ours', 'reference'], 'wrk'))
  return out
}

/** The Node generator's figure at the smallest size, as earlier runs reported it. */
async function benchNodeFlow() {
  return flowAt(SIZES[0], ['ours', 'reference'], 'node')
}

// ── server CPU per flow, by stage ─────────────────────────────────────

/** The profiler's sampling interval: fine enough for a few thousand samples a round, coarse enough to cost little. */
const PROFILE_INTERVAL_US = 250

/**
 * One profiled round: `ours` is bench/stage-server.mjs (the server `pay sandbox start` runs, request log on, from
 * the compiled sources so that the profile names files), `reference` the bare Fastify server. The CPU of the
 * measured run is read from /proc, for the process and for its main thread; the profile's samples of the same run
 * say how the main thread's share divides into stages.
 */
async function stageRound(kind, size) {
  const { file } = await seed(size)
  const dir = join(work, `profile-${++runs}`)
  await mkdir(dir)
  const profiling = ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`]
  const server =
    kind === 'reference' ? await startProcess([...profiling, REFERENCE, '0']) : await startProcess([...profiling, STAGE_SERVER, '0', await freshCopy(file)], { logLines: true })
  const cpu = {}
  let load
  try {
    load = await runWrk(server.url, {
      before: async () => Object.assign(cpu, { all: await cpuMs(server.pid), main: await cpuMs(server.pid, server.pid) }),
      after: async () => Object.assign(cpu, { all: (await cpuMs(server.pid)) - cpu.all, main: (await cpuMs(server.pid, server.pid)) - cpu.main }),
    })
  } finally {
    // A graceful stop: the profile is written as the process exits.
    server.child.kill('SIGTERM')
    await exited(server.child)
  }
  const name = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))
  if (!name) throw new Error(`${kind}: no CPU profile was written`)
  const split = stagesOf(JSON.parse(await readFile(join(dir, name), 'utf8')), ...load.window)
  await rm(dir, { recursive: true, force: true })
  const perFlow = (ms) => (ms * 1000) / load.flows
  return { flows: load.flows, flowsPerSecond: load.flowsPerSecond, allUs: perFlow(cpu.all), mainUs: perFlow(cpu.main), samples: split.samples, busy: split.busy, stages: split.stages }
}

/**
 * Rounds alternate ours and the reference. A stage's µs per flow is its share of the main thread's busy samples
 * (pooled over the rounds) times the main thread's median CPU per flow; what other threads used (libuv's pool:
 * the journal's writes and fdatasyncs; V8's garbage collection and compiler helpers) is a row of its own.
 */
async function benchStages() {
  if (!WRK) return undefined
  const size = SIZES[0]
  await seed(size)
  const kinds = ['ours', 'reference']
  const rounds = { ours: [], reference: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of kinds) {
      const result = await stageRound(kind, size)
      rounds[kind].push(result)
      log(`stages ${size} ${kind} round ${r + 1}: ${result.flowsPerSecond} flows/s (profiled), ${Math.round(result.allUs)} µs CPU/flow, main thread ${Math.round(result.mainUs)} µs`)
    }
  }
  const out = { size, intervalUs: PROFILE_INTERVAL_US }
  for (const kind of kinds) {
    const rs = rounds[kind]
    const mainUs = median(rs.map((x) => x.mainUs))
    const allUs = median(rs.map((x) => x.allUs))
    const busy = rs.reduce((n, x) => n + x.busy, 0)
    const stages = Object.fromEntries(STAGES.map(([key]) => [key, round((rs.reduce((n, x) => n + x.stages[key], 0) / busy) * mainUs, 1)]))
    out[kind] = { mainUs: round(mainUs, 1), otherThreadsUs: round(allUs - mainUs, 1), allUs: round(allUs, 1), busySamples: busy, stages, rounds: rs }
  }
  return out
}

// ── p99 while the data file is compacted ─────────────────────────────

const COMPACTION_SIZE = Number(env.BENCH_COMPACTION_SIZE ?? 100000)

/**
 * One round at COMPACTION_SIZE stored: `compacting` is bench/compaction-server.mjs, which starts a compaction
 * (the whole state written as a new data file) after every write that finds none under way, so that wrk's load
 * runs while compactions of all the stored payments follow each other; `steady` is bench/stage-server.mjs, the
 * same server compacting only when it would (not within a run at 100k).
 */
async function compactionRound(kind) {
  const { file } = await seed(COMPACTION_SIZE)
  const data = await freshCopy(file)
  const server = await startProcess([kind === 'compacting' ? COMPACTION_SERVER : STAGE_SERVER, '0', data], { logLines: true })
  let load
  try {
    const cpuBefore = await cpuMs(server.pid)
    load = await runWrk(server.url)
    load.serverCpuUsPerFlow = Math.round((((await cpuMs(server.pid)) - cpuBefore) * 1000) / (load.flowsPerSecond * (1 + SECONDS)))
  } finally {
    server.child.kill('SIGTERM')
    await exited(server.child)
  }
  if (kind !== 'compacting') return load
  const { snapshotMs } = JSON.parse(await readFile(`${data}.compactions.json`, 'utf8'))
  return { ...load, snapshots: snapshotMs.length, snapshotMs: median(snapshotMs) }
}

async function benchCompaction() {
  if (!WRK) return { skipped: 'wrk is not installed (apt-get install wrk)' }
  await seed(COMPACTION_SIZE)
  const rounds = { compacting: [], steady: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of ['compacting', 'steady']) {
      const result = await compactionRound(kind)
      rounds[kind].push(result)
      log(
        `compaction ${COMPACTION_SIZE} ${kind} round ${r + 1}: ${result.flowsPerSecond} flows/s, p50 ${result.latencyMs.all.p50} ms, p99 ${result.latencyMs.all.p99} ms` +
          (kind === 'compacting' ? `, ${result.snapshots} snapshots written, ${result.snapshotMs} ms each (median)` : ''),
      )
    }
  }
  const sum = (rs) => ({
    flowsPerSecond: Math.round(median(rs.map((x) => x.flowsPerSecond))),
    p50: round(median(rs.map((x) => x.latencyMs.all.p50)), 3),
    p99: round(median(rs.map((x) => x.latencyMs.all.p99)), 3),
    serverCpuUsPerFlow: median(rs.map((x) => x.serverCpuUsPerFlow)),
    errors: rs.reduce((n, x) => n + x.errors, 0),
  })
  const out = { size: COMPACTION_SIZE, compacting: sum(rounds.compacting), steady: sum(rounds.steady), rounds }
  out.compacting.snapshots = median(rounds.compacting.map((x) => x.snapshots))
  out.compacting.snapshotMs = round(median(rounds.compacting.map((x) => x.snapshotMs)), 0)
  out.p99Ratio = round(out.compacting.p99 / out.steady.p99)
  return out
}

function compactionRows(c) {
  const k = c.size >= 1000 ? `${c.size / 1000}k` : String(c.size)
  if (c.skipped) return [`| create→verify while ${k} payments are compacted | not measured: ${c.skipped} | | | | |`]
  const x = c.compacting
  const y = c.steady
  return [
    `| create→verify, ${k} stored, while compactions of ${k} follow each other (bench/compaction-server.mjs) | ${x.flowsPerSecond} flows/s, p50 ${x.p50} ms, p99 ${x.p99} ms; ${x.snapshots} snapshots a run, ${x.snapshotMs} ms each; CPU ${x.serverCpuUsPerFlow} µs/flow | the same server, no compaction: ${y.flowsPerSecond} flows/s, p50 ${y.p50} ms, p99 ${y.p99} ms; CPU ${y.serverCpuUsPerFlow} µs/flow | p99 ${c.p99Ratio}× | p99 ≤ 5 ms, flat (≤ 1.2×) | ${verdict(x.p99 <= 5 && c.p99Ratio <= 1.2)} |`,
  ]
}

// ── team sandbox ──────────────────────────────────────────────────────

/** One round: the flow through `instances` instances on a fresh database, wrk's connections split over them. */
async function teamRound(cluster, instances) {
  const name = `bench_${++runs}`
  await adminSql(cluster, `CREATE DATABASE ${name}`)
  const url = `postgres://pay@127.0.0.1:${cluster.port}/${name}`
  const servers = []
  try {
    for (let i = 0; i < instances; i++) servers.push(await startTeamInstance(url))
    const loads = await Promise.all(servers.map((server) => runWrk(server.url, { threads: 1, connections: CONNECTIONS / instances })))
    const flowsPerSecond = loads.reduce((n, l) => n + l.flowsPerSecond, 0)
    const errors = loads.reduce((n, l) => n + l.errors, 0)
    if (errors > 0) log(`  team ×${instances}: ${errors} errors, first: ${loads.find((l) => l.firstError)?.firstError}`)
    return { flowsPerSecond, errors, p50: Math.max(...loads.map((l) => l.latencyMs.all.p50)), p99: Math.max(...loads.map((l) => l.latencyMs.all.p99)) }
  } finally {
    for (const server of servers) await kill(server.child)
  }
}

function adminSql(cluster, sql) {
  return new Promise((resolveSql, reject) => {
    const child = spawn(join(postgresBin(), 'psql'), ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'pay', '-d', 'postgres', '-qc', sql], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (c) => (err += c))
    child.on('exit', (code) => (code === 0 ? resolveSql() : reject(new Error(`psql: ${err}`))))
  })
}

async function benchTeam() {
  if (!WRK) return { skipped: 'wrk is not installed (apt-get install wrk)' }
  if (!postgresBin()) return { skipped: "PostgreSQL's initdb and pg_ctl are missing (node scripts/ensure-postgres.mjs)" }
  const dir = join(work, 'postgres')
  await mkdir(dir)
  // The cluster runs as the postgres user when we are root: it must get through the bench's folder.
  await import('node:fs/promises').then((fs) => fs.chmod(work, 0o755))
  const cluster = await startCluster(dir, { durable: true })
  try {
    const rounds = { file: [], one: [], two: [] }
    const { file } = await seed(0)
    for (let r = 0; r < ROUNDS; r++) {
      const server = await startOurs(await freshCopy(file), { quiet: true })
      try {
        const load = await runWrk(server.url)
        rounds.file.push({ flowsPerSecond: load.flowsPerSecond, errors: load.errors, p50: load.latencyMs.all.p50, p99: load.latencyMs.all.p99 })
      } finally {
        await kill(server.child)
      }
      rounds.one.push(await teamRound(cluster, 1))
      rounds.two.push(await teamRound(cluster, 2))
      log(`team round ${r + 1}: data file ${rounds.file.at(-1).flowsPerSecond}, one instance ${rounds.one.at(-1).flowsPerSecond}, two ${rounds.two.at(-1).flowsPerSecond} flows/s`)
    }
    const sum = (rs) => ({ flowsPerSecond: Math.round(median(rs.map((x) => x.flowsPerSecond))), p50: round(median(rs.map((x) => x.p50)), 3), p99: round(median(rs.map((x) => x.p99)), 3), errors: rs.reduce((n, x) => n + x.errors, 0) })
    return { file: sum(rounds.file), one: sum(rounds.one), two: sum(rounds.two), rounds }
  } finally {
    await cluster.stop('immediate')
  }
}

// ── cold start ────────────────────────────────────────────────────────

/**
 * Spawn → first 200 from GET /_sandbox/health, polled every 2 ms, and the CPU the process had used by then (steadier
 * than wall time on a busy machine). `ours` is `pay sandbox start` as users run it.
 */
async function coldStart(kind, size) {
  const port = await freePort()
  const args =
    kind === 'reference'
      ? [REFERENCE, String(port)]
      : kind === 'server-only'
        ? [SERVER_ONLY, String(port), await freshCopy(seeds[size].file)]
        : [BIN, 'sandbox', 'start', '--port', String(port), '--data', await freshCopy(seeds[size].file)]
  const t0 = performance.now()
  const child = spawn(process.execPath, args, { cwd: ROOT, env: CHILD_ENV, stdio: 'ignore' })
  try {
    const health = `http://127.0.0.1:${port}/_sandbox/health`
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode} during cold start`)
      if ((await get(health)) === 200) return { ms: performance.now() - t0, cpuMs: await cpuMs(child.pid) }
      await sleep(2)
    }
  } finally {
    await kill(child)
  }
}

async function benchColdStart() {
  const out = []
  const repeats = Math.max(5, ROUNDS * 2)
  for (const size of SIZES) {
    await seed(size)
    const times = { ours: [], 'server-only': [], reference: [] }
    const cpu = { ours: [], 'server-only': [], reference: [] }
    for (let i = 0; i < repeats; i++) {
      for (const kind of Object.keys(times)) {
        const run = await coldStart(kind, size)
        times[kind].push(run.ms)
        cpu[kind].push(run.cpuMs)
      }
    }
    const ours = round(median(times.ours), 1)
    const serverOnly = round(median(times['server-only']), 1)
    const reference = round(median(times.reference), 1)
    const cpuMsOf = Object.fromEntries(Object.entries(cpu).map(([kind, v]) => [kind, round(median(v), 0)]))
    out.push({ size, oursMs: ours, serverOnlyMs: serverOnly, referenceMs: reference, ratio: round(ours / reference), serverOnlyRatio: round(serverOnly / reference), cpuMs: cpuMsOf, times, cpu })
    log(`cold start ${size}: ours ${ours} ms (CPU ${cpuMsOf.ours} ms), server without CLI ${serverOnly} ms (CPU ${cpuMsOf['server-only']} ms), bare Fastify ${reference} ms (CPU ${cpuMsOf.reference} ms)`)
  }
  return out
}

// ── CLI latency ───────────────────────────────────────────────────────

/** A one-command oclif CLI in a temp folder, using the installed @oclif/core, doing the same verify request. */
async function bareOclif() {
  const dir = join(work, 'bare-oclif')
  await mkdir(join(dir, 'bin'), { recursive: true })
  await mkdir(join(dir, 'commands'), { recursive: true })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bare-cli', version: '1.0.0', type: 'module', oclif: { bin: 'bare', commands: './commands', topicSeparator: ' ' } }),
  )
  await writeFile(join(dir, 'bin', 'run.js'), "import { execute } from '@oclif/core'\nawait execute({ dir: import.meta.url })\n")
  await writeFile(
    join(dir, 'commands', 'verify.js'),
    `import { Args, Command, Flags } from '@oclif/core'
import { request } from 'node:http'
export default class Verify extends Command {
  static enableJsonFlag = true
  static args = { trackId: Args.string({ required: true }) }
  static flags = { url: Flags.string({ required: true }), merchant: Flags.string({ default: 'sandbox' }) }
  async run() {
    const { args, flags } = await this.parse(Verify)
    const payload = JSON.stringify({ merchant: flags.merchant, trackId: args.trackId })
    const body = await new Promise((resolve, reject) => {
      const req = request(new URL('/api/v1/verify', flags.url), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve(JSON.parse(text)))
      })
      req.on('error', reject)
      req.end(payload)
    })
    this.log(JSON.stringify(body))
    return body
  }
}
`,
  )
  return join(dir, 'bin', 'run.js')
}

async function benchCli() {
  const { file, sample } = await seed(0 in seeds ? 0 : 0)
  const server = await startOurs(await freshCopy(file))
  try {
    const created = await post(`${server.url}/api/v1/request`, { merchant: 'sandbox', amount: 10, callbackUrl: 'http://127.0.0.1:9/cb' })
    const trackId = created.trackId ?? sample[0]?.trackId
    const bare = await bareOclif()
    const commands = {
      'node -e 0': [['-e', '0'], ROOT],
      'bare oclif verify': [[bare, 'verify', trackId, '--url', server.url, '--json'], ROOT],
      'pay payment verify': [[BIN, 'payment', 'verify', trackId, '--url', server.url, '--json'], ROOT],
      'pay payment create': [[BIN, 'payment', 'create', '--amount', '10', '--callback-url', 'http://127.0.0.1:9/cb', '--url', server.url, '--json'], ROOT],
    }
    const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]))
    const repeats = Math.max(10, ROUNDS * 4)
    for (const [args, cwd] of Object.values(commands)) await timeRun(args, cwd) // warm the file cache
    for (let i = 0; i < repeats; i++) {
      for (const [name, [args, cwd]] of Object.entries(commands)) times[name].push(await timeRun(args, cwd))
    }
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, round(median(v), 1)]))
    log(`CLI: ${JSON.stringify(ms)}`)
    return {
      medianMs: ms,
      ratioToNode: { verify: round(ms['pay payment verify'] / ms['node -e 0']), create: round(ms['pay payment create'] / ms['node -e 0']) },
      ratioToBareOclif: round(ms['pay payment verify'] / ms['bare oclif verify']),
      overNodeMs: { ours: round(ms['pay payment verify'] - ms['node -e 0'], 1), bare: round(ms['bare oclif verify'] - ms['node -e 0'], 1) },
      times,
    }
  } finally {
    await kill(server.child)
  }
}

// ── memory and data file at the largest size ──────────────────────────

async function benchMemory() {
  const size = Math.max(...SIZES)
  const { file } = await seed(size)
  const copy = await freshCopy(file)
  const server = await startOurs(copy)
  await sleep(500)
  const idle = await memoryOf(server.pid)
  // A graceful stop writes the data file itself, so its size is the sandbox's own format.
  const t0 = performance.now()
  server.child.kill('SIGTERM')
  await exited(server.child)
  const stopMs = round(performance.now() - t0, 0)
  const { size: bytes } = await stat(copy)
  const ref = await startReference()
  const refMemory = await memoryOf(ref.pid)
  await kill(ref.child)
  const out = { size, idleRssMB: idle.rssMB, referenceIdleRssMB: refMemory.rssMB, dataFileMB: round(bytes / 1e6, 1), stopMs }
  out.ratio = round(out.idleRssMB / out.dataFileMB)
  log(`memory at ${size}: ${JSON.stringify(out)}`)
  return out
}

// ── callback delivery latency ─────────────────────────────────────────

async function benchCallbacks() {
  const present = await stat(join(ROOT, 'dist', 'src', 'callbacks')).then(
    () => true,
    () => false,
  )
  if (!present) return { skipped: 'no callback dispatcher (src/callbacks) in this build' }
  const { createServer: createHttpServer } = await import('node:http')
  const waiting = new Map()
  const receiver = createHttpServer((req, res) => {
    let text = ''
    req.on('data', (c) => (text += c))
    req.on('end', () => {
      const at = performance.now()
      res.end('ok')
      let trackId
      try {
        trackId = JSON.parse(text).trackId
      } catch {
        trackId = new URL(req.url, 'http://x').searchParams.get('trackId')
      }
      waiting.get(trackId)?.(at)
    })
  })
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r))
  const callbackUrl = `http://127.0.0.1:${receiver.address().port}/callback`
  const { file } = await seed(0)
  const server = await startOurs(await freshCopy(file))
  const times = []
  try {
    for (let i = 0; i < 30; i++) {
      const { trackId } = await post(`${server.url}/api/v1/request`, { merchant: 'sandbox', amount: 10, callbackUrl })
      const delivered = new Promise((r) => waiting.set(trackId, r))
      const t0 = performance.now()
      const answered = post(`${server.url}/_sandbox/payments/${trackId}/simulate`, { outcome: 'paid' })
      const at = await Promise.race([delivered, sleep(5000).then(() => null)])
      await answered
      times.push(at === null ? null : at - t0)
    }
  } finally {
    await kill(server.child)
    receiver.close()
  }
  const got = times.filter((t) => t !== null).sort((a, b) => a - b)
  const out = {
    deliveries: got.length,
    missed: times.length - got.length,
    p50Ms: round(got[Math.floor(got.length / 2)] ?? null, 1),
    maxMs: round(got.at(-1) ?? null, 1),
  }
  log(`callbacks: ${JSON.stringify(out)}`)
  return out
}

// ── run ───────────────────────────────────────────────────────────────

try {
  if (wants('flow')) results.flow = await benchFlow()
  if (wants('stages')) results.stages = await benchStages()
  if (wants('compaction')) results.compaction = await benchCompaction()
  if (wants('node')) results.nodeFlow = await benchNodeFlow()
  if (wants('cold')) results.coldStart = await benchColdStart()
  if (wants('cli')) results.cli = await benchCli()
  if (wants('memory')) results.memory = await benchMemory()
  if (wants('callbacks')) results.callbacks = await benchCallbacks()
  if (wants('team')) results.team = await benchTeam()
} finally {
  await rm(work, { recursive: true, force: true })
}
results.loadAfter = loadavg().map((x) => round(x))
results.finishedAt = new Date().toISOString()
await mkdir(RESULTS, { recursive: true })
await writeFile(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`)
process.stdout.write(`${table(results)}\n`)

function verdict(ok) {
  return ok ? 'met' : '**short**'
}

function table(r) {
  const k = (n) => (n >= 1000 ? `${n / 1000}k` : String(n))
  const lines = []
  const m = r.machine
  lines.push(`Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGB} GB, Node ${m.node}, ${m.platform}; load average ${r.loadBefore.join(' ')} before, ${r.loadAfter.join(' ')} after.`)
  lines.push(
    `Load: wrk -t2 -c${CONNECTIONS}, bench/flow.lua (create, then verify the trackId it got), ${r.config.rounds} alternating rounds of 1 s warm-up + ${r.config.seconds} s; medians. ` +
      '`pay sandbox start` as users run it: request log on, a create acknowledged once fdatasynced.',
  )
  lines.push('')
  lines.push('| Goal | pay sandbox | Reference | Ratio | Target | Verdict |')
  lines.push('| --- | --- | --- | --- | --- | --- |')
  const flows = (x) => `${x.flowsPerSecond} flows/s, p50 ${x.p50} ms, p99 ${x.p99} ms`
  const flow = r.flow ?? []
  if (wants('flow') && flow.length === 0) lines.push('| create→verify (wrk) | not measured: wrk is not installed | | | | |')
  for (const f of flow) {
    const o = f.ours
    lines.push(
      `| create→verify, ${k(f.size)} stored | ${flows(o)} | bare Fastify: ${flows(f.reference)} | ${o.ratio}× | ≥ 0.8× (floor 0.6×), p99 ≤ 5 ms | ${verdict(o.ratio >= 0.8 && o.p99 <= 5)}${o.ratio >= 0.6 && o.ratio < 0.8 ? ' (above the floor)' : ''} |`,
    )
  }
  if (flow.length > 1) {
    const first = flow[0]
    const last = flow.at(-1)
    const kept = round(last.ours.ratio / first.ours.ratio)
    // CPU per flow is steadier than throughput on a shared machine: both must hold.
    const cpuGrowth = round(last.ours.serverCpuUsPerFlow / first.ours.serverCpuUsPerFlow)
    lines.push(
      `| flat from ${k(first.size)} to ${k(last.size)} stored: ratio kept, CPU per flow grown | ${last.ours.ratio}× ÷ ${first.ours.ratio}×; ${last.ours.serverCpuUsPerFlow} ÷ ${first.ours.serverCpuUsPerFlow} µs | | ${kept}×; ${cpuGrowth}× | ≥ 0.9×; ≤ 1.15× | ${verdict(kept >= 0.9 && cpuGrowth <= 1.15)} |`,
    )
  }
  for (const f of flow) {
    lines.push(`| server CPU per flow, ${k(f.size)} stored | ${f.ours.serverCpuUsPerFlow} µs | bare Fastify: ${f.reference.serverCpuUsPerFlow} µs | ${f.ours.cpuRatio}× (efficiency) | | |`)
  }
  for (const f of flow) {
    if (f['ours-quiet']) lines.push(`| same, ${k(f.size)} stored, --quiet (no request log) | ${flows(f['ours-quiet'])} | | ${f['ours-quiet'].ratio}× | | |`)
    if (f['ours-os']) lines.push(`| same, ${k(f.size)} stored, --durability os (request log on) | ${flows(f['ours-os'])} | | ${f['ours-os'].ratio}× | ≥ 0.8× | ${verdict(f['ours-os'].ratio >= 0.8)} |`)
  }
  if (r.compaction) lines.push(...compactionRows(r.compaction))
  if (r.nodeFlow) {
    const f = r.nodeFlow
    lines.push(`| create→verify, ${k(f.size)} stored, Node generator (bench/load.mjs; flatters us) | ${flows(f.ours)} | bare Fastify: ${flows(f.reference)} | ${f.ours.ratio}× | | |`)
  }
  for (const c of r.coldStart ?? []) {
    const target = c.size >= 100000 ? 2 : 1.3
    lines.push(
      `| cold start, ${k(c.size)} stored: \`pay sandbox start\`, spawn → first 200 | ${c.oursMs} ms, CPU ${c.cpuMs.ours} ms (server alone: ${c.serverOnlyMs} ms, ${c.serverOnlyRatio}×; CPU ${c.cpuMs['server-only']} ms) | bare Fastify: ${c.referenceMs} ms, CPU ${c.cpuMs.reference} ms | ${c.ratio}× | ≤ ${target}× | ${verdict(c.ratio <= target)} |`,
    )
  }
  if (r.cli) {
    const ms = r.cli.medianMs
    for (const [name, ratio] of [['pay payment verify', r.cli.ratioToNode.verify], ['pay payment create', r.cli.ratioToNode.create]]) {
      lines.push(`| \`${name}\` (process wall time) | ${ms[name]} ms | \`node -e 0\`: ${ms['node -e 0']} ms (bare oclif verify: ${ms['bare oclif verify']} ms) | ${ratio}× | ≤ 2× | ${verdict(ratio <= 2)} |`)
    }
  }
  if (r.callbacks) {
    const c = r.callbacks
    lines.push(
      c.skipped
        ? `| callback delivery | not measured: ${c.skipped} | | | | |`
        : `| callback delivered after the state change (simulate → receiver) | p50 ${c.p50Ms} ms, max ${c.maxMs} ms (${c.deliveries} delivered, ${c.missed} missed) | | | p50 ≤ 5 ms | ${verdict(c.missed === 0 && c.p50Ms <= 5)} |`,
    )
  }
  if (r.memory) {
    const mm = r.memory
    const judged = mm.size >= 100000
    lines.push(
      `| server RSS, ${k(mm.size)} stored, idle | ${mm.idleRssMB} MB | its data in JSON (the data file): ${mm.dataFileMB} MB | ${mm.ratio}× | ≤ 2× at 100k | ${judged ? verdict(mm.ratio <= 2) : 'not judged below 100k'} |`,
    )
    for (const f of flow) {
      if (f.size === mm.size) lines.push(`| server peak RSS under load, ${k(f.size)} stored | ${f.ours.peakRssMB} MB | bare Fastify: ${f.reference.peakRssMB} MB | | | |`)
    }
    lines.push(`| graceful stop, ${k(mm.size)} stored (writes the data file) | ${mm.stopMs} ms | | | | |`)
  }
  if (r.team) {
    const t = r.team
    if (t.skipped) lines.push(`| create→verify, team sandbox (PostgreSQL) | not measured: ${t.skipped} | | | | |`)
    else {
      lines.push(`| create→verify, team sandbox, one instance on PostgreSQL | ${flows(t.one)} | the data file (--quiet): ${flows(t.file)} | ${round(t.one.flowsPerSecond / t.file.flowsPerSecond)}× | | |`)
      lines.push(`| create→verify, team sandbox, two instances on one PostgreSQL | ${flows(t.two)} | the data file (--quiet): ${flows(t.file)} | ${round(t.two.flowsPerSecond / t.file.flowsPerSecond)}× | | |`)
    }
  }
  if (r.stages) lines.push('', ...stageTable(r.stages, r.flow?.find((f) => f.size === r.stages.size)))
  return lines.join('\n')
}

function stageTable(st, flow) {
  const size = st.size >= 1000 ? `${st.size / 1000}k` : String(st.size)
  const us = (x) => (x === undefined || x === null ? '' : `${x}`)
  const lines = [
    `Server CPU per create→verify flow by stage, ${size} stored, in µs: ${st.ours.rounds.length} alternating rounds per server under the same wrk load, ` +
      `each profiled (\`node --cpu-prof\`, a sample every ${st.intervalUs} µs). A sample goes to the stage of the innermost frame on its stack that ` +
      'bench/stages.mjs names (a function or a file; Node\'s and V8\'s own frames count for the code that called them). A stage\'s µs are its ' +
      'share of the main thread\'s busy samples times the main thread\'s CPU per flow, read from /proc over the measured run; other threads\' CPU ' +
      `is its own row. Profiling costs CPU of its own: the totals run above the unprofiled figure${flow ? ` (${flow.ours.serverCpuUsPerFlow} µs and ${flow.reference.serverCpuUsPerFlow} µs in the rows above)` : ''}.`,
    '',
    '| Stage | pay sandbox | bare Fastify |',
    '| --- | --- | --- |',
  ]
  for (const [key, label] of STAGES) lines.push(`| ${label} | ${us(st.ours.stages[key])} | ${us(st.reference.stages[key])} |`)
  lines.push(`| **main thread** | **${st.ours.mainUs}** | **${st.reference.mainUs}** |`)
  lines.push(`| other threads (libuv's pool: journal writes and fdatasync; V8's GC and compiler helpers) | ${st.ours.otherThreadsUs} | ${st.reference.otherThreadsUs} |`)
  lines.push(`| **whole process, profiled** | **${st.ours.allUs}** | **${st.reference.allUs}** |`)
  return lines
}
