/**
 * The machine's network settings from the runner's environment: proxies and extra certificate
 * authorities. A newcomer's shell has them too; a test that builds a bare environment for the
 * commands a guide runs keeps these so `npm install` reaches the registry as it would for them.
 */
const NETWORK_VARIABLE = /^(https?_proxy|no_proxy|all_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl))$/i;

export function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK_VARIABLE.test(e[0]) && e[1] !== undefined));
}

/** A newcomer's shell for the commands a document runs: the network settings, PATH and HOME, nothing else of the runner's. */
export function newcomerShellEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...networkEnv(), PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? home, npm_config_update_notifier: 'false', npm_config_fund: 'false', ...extra };
}
