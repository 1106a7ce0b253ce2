import { StringDecoder } from 'node:string_decoder';

/** One AMI packet (an action, response or event): its `Key: Value` lines, in order. */
export class AmiPacket {
  constructor(readonly fields: ReadonlyArray<readonly [string, string]>) {}

  /** The first value of a key, compared case-insensitively as Asterisk does. */
  get(key: string): string | undefined {
    const wanted = key.toLowerCase();
    return this.fields.find(([k]) => k.toLowerCase() === wanted)?.[1];
  }

  /** Every value of a repeated key (Variable, ChanVariable). */
  all(key: string): string[] {
    const wanted = key.toLowerCase();
    return this.fields.filter(([k]) => k.toLowerCase() === wanted).map(([, v]) => v);
  }
}

/** Serialises an action: `Key: Value\r\n` lines and an empty line. Refuses line breaks in values. */
export function serializeAmiPacket(fields: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [key, value] of fields) {
    if (!/^[A-Za-z0-9_-]+$/.test(key)) throw new TypeError(`AMI key "${key}" is not a plain word`);
    if (/[\r\n]/.test(value)) throw new TypeError(`AMI value of ${key} contains a line break`);
    out += `${key}: ${value}\r\n`;
  }
  return `${out}\r\n`;
}

/**
 * Splits the AMI byte stream into the banner line and packets. Asterisk ends lines with CRLF;
 * a bare LF is accepted too, as Asterisk itself accepts it.
 */
export class AmiStreamParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private bannerSeen = false;
  /** The `Asterisk Call Manager/<version>` line, once received. */
  banner: string | undefined;

  /** Feeds bytes; returns the packets completed by them. */
  push(chunk: Buffer): AmiPacket[] {
    this.buffer += this.decoder.write(chunk);
    const packets: AmiPacket[] = [];
    if (!this.bannerSeen) {
      const end = this.buffer.indexOf('\n');
      if (end < 0) return packets;
      this.banner = this.buffer.slice(0, end).replace(/\r$/, '');
      this.buffer = this.buffer.slice(end + 1);
      this.bannerSeen = true;
    }
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.buffer);
      if (!match) break;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const fields: Array<[string, string]> = [];
      for (const line of block.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        fields.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
      }
      if (fields.length) packets.push(new AmiPacket(fields));
    }
    return packets;
  }
}

/** The version in a banner `Asterisk Call Manager/5.0.2`, or null when it is not an AMI banner. */
export function amiVersion(banner: string | undefined): string | null {
  const m = /^Asterisk Call Manager\/(\S+)/.exec(banner ?? '');
  return m ? m[1]! : null;
}
