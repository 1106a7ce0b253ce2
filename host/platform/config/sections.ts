// Nested configuration sections (`system_one.provider`) are flat dotted keys inside the
// registry, nested objects in the JSON config file and in request bodies (ConfigModel.flatten
// and nest), and upper-case paths with `__` between levels in the environment (`SYSTEM_ONE__PROVIDER`).

/** The environment spelling of a key: flat keys as they are, nested ones `SECTION__KEY`. */
export function envNameOf(key: string): string {
  return key.includes('.') ? key.toUpperCase().replaceAll('.', '__') : key;
}
