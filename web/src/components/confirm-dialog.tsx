import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal that asks before an action: the title, what will happen (children), the action's
 * button and Cancel. Escape and Cancel close it; the button is disabled while `ready` is false.
 */
export function ConfirmDialog({ title, confirmLabel, ready = true, onConfirm, onClose, children }: { title: ComponentChildren; confirmLabel: ComponentChildren; ready?: boolean; onConfirm: () => void; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-h" onCancel={(e) => (e.preventDefault(), onClose())}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) onConfirm();
        }}
      >
        <h2 id="confirm-h">{title}</h2>
        {children}
        <div class="row">
          <button type="submit" disabled={!ready}>
            {confirmLabel}
          </button>
          <button type="button" class="quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
