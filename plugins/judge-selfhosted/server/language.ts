/** The ISO 639-1 language of a text, or undefined when it cannot be told; eld is an optional dependency. */
export async function detectLanguage(text: string): Promise<string | undefined> {
  const { eld } = await import('eld/small');
  const result = eld.detect(text.slice(0, 2000)) as { language?: string };
  return result.language || undefined;
}
