/** Copies to the clipboard; without the permission, selects the field so Ctrl+C copies it. */
export async function copyText(text: string, fallback: HTMLInputElement | HTMLTextAreaElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    fallback?.select();
    return document.execCommand?.('copy') ?? false;
  }
}
