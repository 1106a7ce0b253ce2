/** A route's access as a test pins it: method and path as /openapi.json names them, its access, and whether it is administrative. */
export type AccessPin = [route: string, access: string, admin?: 'admin'];
