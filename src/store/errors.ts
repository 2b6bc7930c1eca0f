/** The data file cannot be used; start-up stops with this message. Nothing was written. */
export class DataFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataFileError'
  }
}

/** Another live sandbox holds the data file. */
export class DataFileInUseError extends DataFileError {
  readonly pid: number
  readonly url: string | undefined
  constructor(message: string, pid: number, url: string | undefined) {
    super(message)
    this.name = 'DataFileInUseError'
    this.pid = pid
    this.url = url
  }
}
