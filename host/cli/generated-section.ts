import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A generated part of a document: the text between two markers, never edited by hand. */
export interface GeneratedSection {
  start: string;
  end: string;
  /** What the markers mark, for the error when they are missing ("config-table"). */
  name: string;
}

/** `document` with the text between the section's markers replaced by `content`. */
export function withSection(document: string, section: GeneratedSection, content: string): string {
  const start = document.indexOf(section.start);
  const end = document.indexOf(section.end);
  if (start < 0 || end < start) throw new Error(`the document has no ${section.name} markers`);
  return `${document.slice(0, start + section.start.length)}\n${content}${document.slice(end)}`;
}

/**
 * The command line of a generator run as `node dist/host/cli/<name>.js`: prints the generated
 * text, or with `--write <file>` (or `--write` alone, for `defaultFile`) applies it to that file.
 * Runs only when `moduleUrl` is the script node was started with.
 */
export function runSectionGenerator(moduleUrl: string, render: () => string | Promise<string>, apply: (document: string, content: string) => string, defaultFile?: string): void {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  const main = async (args: string[]) => {
    const content = await render();
    const target = args[0] === '--write' ? (args[1] ?? defaultFile) : undefined;
    if (!target) {
      process.stdout.write(content);
      return;
    }
    const file = path.resolve(target);
    await writeFile(file, apply(await readFile(file, 'utf8'), content));
    process.stdout.write(`updated ${file}\n`);
  };
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
