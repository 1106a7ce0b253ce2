import { integer, flag, text } from '../../../platform/config/model/field-kinds.js';

/** Configuration keys of the embedded code editor (GET /api/editor/settings). */
export const EditorKeys = {
  EDITOR_ENABLED: flag().default(true).describe('Offer the embedded code editor.'),
  EDITOR_PORT: integer(1, 65535).default(4440).describe('Port the editor container listens on.'),
  EDITOR_BIND: text().default('local').describe('Where the editor listens: "local" for loopback only, otherwise an address to bind.'),
  EDITOR_EMBED_ENABLED: flag().default(true).describe('Show the editor embedded in the UI (otherwise only as a link).'),
  EDITOR_IMAGE: text().default('codercom/code-server:latest').describe('Container image of the editor.'),
};
