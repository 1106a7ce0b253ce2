import type { ComponentChildren } from 'preact';

/** A labelled form control: the label names the control `id` (which the child carries), hints and messages follow it. */
export function Field({ id, label, grow = false, children }: { id: string; label: ComponentChildren; grow?: boolean; children: ComponentChildren }) {
  return (
    <div class={grow ? 'field grow' : 'field'}>
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

/** The options of a select whose values are also what it shows. */
export function Options({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </>
  );
}
