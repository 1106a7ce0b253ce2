/**
 * The native image and PDF libraries a fax needs only when a document is converted or rendered:
 * loaded on first use, so a gateway that only takes PDFs never maps libvips or pdfkit's fonts.
 */
export const loadSharp = async () => (await import('sharp')).default;
export const loadPdfKit = async () => (await import('pdfkit')).default;
