/**
 * The guides shipped in the package's docs/ folder, one per task, in the order the README lists them: `pay help`
 * names them, the sandbox serves them at `/guides/<name>` and the inspector's home page links them.
 */
export const GUIDES = [
  { name: 'ci', title: 'Use pay in CI' },
  { name: 'test-a-shop', title: 'Test a shop' },
  { name: 'test-a-bot', title: 'Test a Telegram bot' },
  { name: 'unhappy-paths', title: 'Rehearse the unhappy paths' },
  { name: 'team-sandbox', title: 'Share a team sandbox on PostgreSQL' },
  { name: 'support-replay', title: 'Replay a callback for support' },
  { name: 'test-suite', title: 'Use pay from a test suite' },
] as const

export type GuideName = (typeof GUIDES)[number]['name']

/** A guide's file, relative to the package's folder. */
export const guideFile = (name: GuideName): string => `docs/${name}.md`
