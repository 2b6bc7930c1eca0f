/** The command reference page, for the package at `root`. */
export function commandsReference(root: string): Promise<string>
