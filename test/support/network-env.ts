/**
 * The machine's network settings from the runner's environment: proxies and extra certificate
 * authorities. A newcomer's shell has them too; a test that builds a bare environment for the
 * commands a guide runs keeps these so `npm install` reaches the registry as it would for them.
 */
const NETWORK_VARIABLE = /^(https?_proxy|no_proxy|all_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl))$/i;

export function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK_VARIABLE.test(e[0]) && e[1] !== undefined));
}
