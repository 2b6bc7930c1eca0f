// The house's import rules, checked by test/architecture.test.ts (and by `npx depcruise src commands`).
// docs/architecture.md says the same in words.

/**
 * The floors, lowest first. A room is a folder under src/ (or one file at its top, or commands/). A room imports
 * rooms of its own floor and of the floors below it, never above; arrows between rooms never form a circle (the
 * test checks that, sideways arrows included). A new room must be put on a floor here before it passes.
 */
const FLOORS = [
  { floor: 'core', rooms: ['domain', 'version.ts', 'guides.ts'] },
  { floor: 'plumbing', rooms: ['store', 'http'] },
  { floor: 'shared services', rooms: ['clock', 'service', 'pages'] },
  { floor: 'capabilities', rooms: ['audit', 'callbacks', 'chain', 'checkout', 'faults', 'inspector', 'openapi', 'telegram'] },
  { floor: 'composition', rooms: ['server'] },
  { floor: 'entry points', rooms: ['client', 'scenario', 'cli', 'index.ts', 'commands'] },
]

/** The path pattern of a room's files. */
const roomPath = (room) =>
  room === 'commands' ? '^commands/' : room.endsWith('.ts') ? `^src/${room.replace('.', '\\.')}$` : `^src/${room}/`

const any = (rooms) => `(${rooms.map(roomPath).join('|')})`

/** From each floor, the rooms of the floors above it. */
const noClimbing = FLOORS.slice(0, -1).map(({ floor, rooms }, i) => ({
  name: `no-climbing-from-${floor.replace(/ /g, '-')}`,
  comment: `The ${floor} floor (${rooms.join(', ')}) imports only its own floor and the floors below.`,
  severity: 'error',
  from: { path: any(rooms) },
  to: { path: any(FLOORS.slice(i + 1).flatMap((f) => f.rooms)) },
}))

/** Builtins the pure core may use: hashing and random ids, bytes, and the IP address parsers (isIP). */
const DOMAIN_BUILTINS = ['crypto', 'buffer', 'net']
/** Packages the pure core may use: JSON Schema validation and the Bot API's published types. */
const DOMAIN_PACKAGES = ['ajv', '@grammyjs/types']

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module imports itself back through others: split out what both sides need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: `src/domain imports only src/domain, the builtins ${DOMAIN_BUILTINS.join(', ')} and the packages ${DOMAIN_PACKAGES.join(', ')}: no disk, no network, no feature.`,
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        pathNot: ['^src/domain/', `^(node:)?(${DOMAIN_BUILTINS.join('|')})$`, `^node_modules/(${DOMAIN_PACKAGES.join('|')})/`],
      },
    },
    {
      name: 'store-knows-no-feature',
      comment: 'src/store imports only src/store and src/domain: a feature\'s records are shapes in src/domain.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^(src|commands)/', pathNot: '^src/(store|domain)/' },
    },
    {
      name: 'store-core-knows-no-engine',
      comment:
        'The store\'s core (src/store/*.ts) works with any engine through engine.ts; only open.ts, which picks the ' +
        'engine, imports one (src/store/<engine>/).',
      severity: 'error',
      from: { path: '^src/store/[^/]+\\.ts$', pathNot: '^src/store/open\\.ts$' },
      to: { path: '^src/store/[^/]+/' },
    },
    {
      name: 'store-engines-apart',
      comment: 'A store engine (src/store/<engine>/) imports the core and itself, never another engine.',
      severity: 'error',
      from: { path: '^src/store/([^/]+)/' },
      to: { path: '^src/store/[^/]+/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'server-is-the-composition-root',
      comment:
        'src/server wires the capabilities; only what starts it (src/index.ts, src/cli, commands) imports it. ' +
        'What routes share belongs in src/http, what pages share in src/pages.',
      severity: 'error',
      from: { pathNot: ['^src/server/', '^src/index\\.ts$', '^src/cli/', '^commands/'] },
      to: { path: '^src/server/' },
    },
    ...noClimbing,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // Type-only imports are arrows too: a type that climbs a floor ties the floors together all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages that publish only an `exports` map (@oclif/core, lowdb) resolve as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}

// For test/architecture.test.ts, which checks every room is on a floor; not enumerable, so not part of the config.
Object.defineProperty(module.exports, 'FLOORS', { value: FLOORS, enumerable: false })
