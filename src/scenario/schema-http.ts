import { bindName, durationText, LIMITS, sent, title } from './schema-parts.js'

/*
 * The http step: a request to the merchant's own system (its shop, its bot's backend), what to take from the
 * answer, and what the answer must show. Part of the scenario schema (schema.ts).
 */

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** What an http step reads of an answer and how long it waits, at most. */
export const HTTP_LIMITS = { bodyBytes: 1024 * 1024, timeoutMs: 60_000, headers: 50, binds: 50, checks: 100 } as const

/** RFC 9110's token: the characters a header name may have. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
/** An RFC 6901 JSON pointer: "" (the whole body) or /a/0/b, with ~0 for ~ and ~1 for /. */
const POINTER = '^(/([^~]|~[01])*)*$'
/** A name a later step refers to as ${as.name}. */
const FIELD = '^[A-Za-z][A-Za-z0-9]*$'

const pattern = (title: string, what: string, examples: readonly string[]) =>
  ({
    title,
    type: 'string',
    minLength: 1,
    maxLength: 1000,
    description: `${what} A JavaScript regular expression, case-sensitive, or in slashes with flags (i, m, s, u) such as "/delivered/i"; a \${…} reference in it matches its value as written.`,
    errorMessage: 'must be a regular expression of 1 to 1000 characters, e.g. "delivered" or "/pay/([^/?#]+)/"',
    examples,
  }) as const

const pointer = (title: string, what: string, examples: readonly string[]) =>
  ({
    title,
    type: 'string',
    maxLength: 1000,
    pattern: POINTER,
    description: `${what} A JSON pointer (RFC 6901): "" for the whole body, "/id", "/items/0/name".`,
    errorMessage: 'must be a JSON pointer such as "/id" or "/items/0/name" ("" for the whole body; ~0 for ~ and ~1 for /)',
    examples,
  }) as const

const headerName = { type: 'string', minLength: 1, maxLength: 200, pattern: HEADER_NAME, errorMessage: 'must be a header name, e.g. location or x-order-id', examples: ['location'] } as const

const statusCode = {
  type: ['integer', 'string'],
  minimum: 100,
  maximum: 599,
  pattern: '^[1-5]xx$',
  errorMessage: 'must be an HTTP status such as 303, or a class such as "2xx"',
} as const

/** A value at a JSON pointer: equal to a JSON value, or compared. */
const matcher = {
  title: 'Expected value',
  description:
    'A string, number, boolean, null or list: the value must equal it (strings after ${…} references). An object compares: {"equals": any JSON}, {"pattern": "regex"} (a string that matches), {"gt"|"gte"|"lt"|"lte": number} (a number compared), {"exists": true|false}; several keys must all hold, e.g. {"gte": 1, "lt": 100}.',
  if: { type: 'object' },
  then: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    errorMessage: 'must be a comparison with at least one of equals, pattern, gt, gte, lt, lte, exists',
    properties: {
      equals: { description: 'Deep equality with this JSON value (after ${…} references).' },
      pattern: pattern('Pattern', 'The value is a string that matches this.', ['^ord_']),
      gt: { type: ['number', 'string'], description: 'The value is a number greater than this (or a ${…} reference to a number).', errorMessage: 'must be a number (or a ${…} reference)' },
      gte: { type: ['number', 'string'], description: 'The value is a number greater than or equal to this.', errorMessage: 'must be a number (or a ${…} reference)' },
      lt: { type: ['number', 'string'], description: 'The value is a number less than this.', errorMessage: 'must be a number (or a ${…} reference)' },
      lte: { type: ['number', 'string'], description: 'The value is a number less than or equal to this.', errorMessage: 'must be a number (or a ${…} reference)' },
      exists: { type: 'boolean', description: 'true: the pointer leads to a value; false: it leads nowhere.', errorMessage: 'must be true or false' },
    },
  },
  examples: ['delivered', 59.97, { gte: 1 }, { pattern: '^ord_' }, { exists: false }],
} as const

const bindSource = {
  title: 'Bound from',
  description: 'Where the value comes from: {"json": "/pointer"} (the JSON body), {"body": "regex"} (the body text: the first group, else the match), or {"header": "name"} with an optional "pattern" (the first group of its match).',
  oneOf: [
    {
      title: 'From the JSON body',
      type: 'object',
      required: ['json'],
      additionalProperties: false,
      properties: { json: pointer('JSON pointer', 'The value at this pointer, with its JSON type.', ['/id']) },
    },
    {
      title: 'From the body text',
      type: 'object',
      required: ['body'],
      additionalProperties: false,
      properties: { body: pattern('Pattern', 'The first group of the match in the body (or the whole match).', ['order (ord_\\w+)']) },
    },
    {
      title: 'From a header',
      type: 'object',
      required: ['header'],
      additionalProperties: false,
      properties: {
        header: { ...headerName, title: 'Header', description: 'The header’s value (the first, when it repeats).' },
        pattern: pattern('Pattern', 'Takes the first group of the match in the header’s value (or the whole match).', ['/orders/([^/]+)']),
      },
    },
  ],
  examples: [{ json: '/id' }, { header: 'location', pattern: '/orders/([^/?#]+)' }],
} as const

/** The one body a request may have: not both of two of json, form and body (`properties: {x: true}` for Ajv's strict mode). */
const oneBody = (a: string, b: string) =>
  ({
    if: { required: [a], properties: { [a]: true } },
    then: { not: { required: [b], properties: { [b]: true } }, errorMessage: 'give at most one body: json, form or body' },
  }) as const

export const httpStep = {
  title: 'http step',
  description:
    'Calls a URL of the merchant’s own system (its shop, its bot’s backend) and checks the answer. Redirects are not followed. Binds ${as.status}, ${as.location} (the Location header as an absolute URL), ${as.trackId} (from a Location that is a checkout URL …/pay/<trackId>), ${as.body} (the body text) and each name of "bind". Only local URLs (loopback addresses, localhost, the sandbox’s own host) unless `pay scenario run --allowed-hosts` or `--allow-remote` says otherwise.',
  type: 'object',
  required: ['http'],
  additionalProperties: false,
  properties: {
    http: {
      title: 'Request',
      description: 'The request to send, what to take from the answer, and how long to keep asking.',
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      allOf: [oneBody('json', 'form'), oneBody('json', 'body'), oneBody('form', 'body')],
      properties: {
        as: bindName('The answer’s name: binds ${as.status}, ${as.location}, ${as.trackId}, ${as.body} and the names of "bind".', 'order'),
        method: { title: 'Method', description: 'The HTTP method.', enum: HTTP_METHODS, default: 'GET', errorMessage: `must be one of ${HTTP_METHODS.join(', ')}` },
        url: {
          title: 'URL',
          description: 'An absolute http or https URL, usually built from a variable: "${vars.shop}/orders/${order.orderId}".',
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          errorMessage: 'must be a URL of at most 4096 characters (or ${…} references that make one)',
          examples: ['${vars.shop}/orders'],
        },
        headers: {
          title: 'Headers',
          description: 'Request headers, name: value (values after ${…} references).',
          type: 'object',
          maxProperties: HTTP_LIMITS.headers,
          propertyNames: headerName,
          additionalProperties: { type: 'string', maxLength: 8192, errorMessage: 'must be a header value (a string of at most 8192 characters)' },
          examples: [{ accept: 'application/json' }],
        },
        json: sent('JSON body', 'Sent as the body, with Content-Type: application/json (unless "headers" gives one).', [{ item: 'tshirt', quantity: 3 }]),
        form: {
          title: 'Form body',
          description: 'Sent as application/x-www-form-urlencoded, as an HTML form posts it (values after ${…} references).',
          type: 'object',
          additionalProperties: { type: ['string', 'number', 'boolean'], errorMessage: 'must be a string, number or boolean' },
          examples: [{ item: 'tshirt', quantity: 3 }],
        },
        body: { title: 'Text body', description: 'Sent as it is (after ${…} references); give its Content-Type in "headers".', type: 'string', maxLength: 1024 * 1024, errorMessage: 'must be a string' },
        timeout: { title: 'Time per request', description: `How long one request may take, answer included: a duration up to ${HTTP_LIMITS.timeoutMs / 1000}s.`, ...durationText, default: '10s' },
        within: {
          title: 'Keep asking for',
          description: `Repeats the request (every 250 ms) until the answer meets "expect", for up to this long: a duration up to ${LIMITS.withinMs / 1000}s. Without it the request is made once.`,
          ...durationText,
          examples: ['10s'],
        },
        bind: {
          title: 'Bind',
          description: 'Values to take from the answer, each under a name later steps use as ${as.name}.',
          type: 'object',
          maxProperties: HTTP_LIMITS.binds,
          propertyNames: { type: 'string', pattern: FIELD, maxLength: 100, errorMessage: 'must be a name of letters and digits starting with a letter, e.g. orderId' },
          additionalProperties: bindSource,
          examples: [{ orderId: { json: '/id' } }],
        },
      },
      examples: [{ as: 'order', method: 'POST', url: '${vars.shop}/orders', json: { item: 'tshirt', quantity: 3 }, bind: { orderId: { json: '/id' } } }],
    },
    expect: {
      title: 'Expected answer',
      description: 'Any of: the status (by default any below 400), values of the JSON body at pointers, a pattern the body matches, patterns headers match.',
      type: 'object',
      additionalProperties: false,
      properties: {
        status: {
          title: 'Status',
          description: 'The HTTP status, a class such as "2xx", or a list of them (any one).',
          ...statusCode,
          type: ['integer', 'string', 'array'],
          items: statusCode,
          minItems: 1,
          maxItems: 20,
          errorMessage: 'must be an HTTP status such as 303, a class such as "2xx", or a list of them',
          examples: [303, '2xx', [302, 303]],
        },
        json: {
          title: 'JSON body',
          description: 'Values the JSON body must hold, by JSON pointer: {"/state": "delivered", "/amount": {"gte": 1}}.',
          type: 'object',
          maxProperties: HTTP_LIMITS.checks,
          propertyNames: { type: 'string', maxLength: 1000, pattern: POINTER, errorMessage: 'must be a JSON pointer such as "/state" ("" for the whole body)' },
          additionalProperties: matcher,
          examples: [{ '/state': 'delivered' }],
        },
        body: pattern('Body', 'A pattern the body text must match.', ['/delivered/i']),
        headers: {
          title: 'Headers',
          description: 'Patterns header values must match, by name: {"location": "/pay/"}. A header that is absent fails.',
          type: 'object',
          maxProperties: HTTP_LIMITS.headers,
          propertyNames: headerName,
          additionalProperties: pattern('Header pattern', 'A pattern the header’s value must match.', ['/pay/']),
          examples: [{ location: '/pay/' }],
        },
      },
      examples: [{ status: 303, headers: { location: '/pay/' } }, { status: 200, json: { '/state': 'delivered' } }],
    },
    title,
  },
} as const
