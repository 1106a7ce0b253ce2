import { useState } from 'preact/hooks';

export interface Filters {
  status: string;
  backend: string;
  since: string;
}

/** The job list's filters, applied on submit (they go into the page's address). */
export function JobFilters({ initial, statuses, onApply }: { initial: Filters; statuses: readonly string[]; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  return (
    <form
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ ...draft, backend: draft.backend.trim() });
      }}
    >
      <div class="field">
        <label for="f-status">Status</label>
        <select id="f-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
          <option value="">any</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-backend">Backend</label>
        <input id="f-backend" value={draft.backend} onInput={(e) => setDraft({ ...draft, backend: e.currentTarget.value })} />
      </div>
      <div class="field">
        <label for="f-since">Created since</label>
        <input id="f-since" type="datetime-local" value={draft.since} onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
      </div>
      <div class="field">
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}
