// A modal dialog on the native <dialog> element: focus is trapped by the browser, Esc closes it,
// and focus goes back to what opened it.
import { useLayoutEffect, useRef } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";

let counter = 0;

/** A modal with a title bar and a close button; renders children only while open. */
export function Dialog({ open, onClose, title, icon = null, testid, closeLabel, wide = false, children }) {
  const ref = useRef(null);
  const opener = useRef(null);
  const titleId = useRef(`dlg-${++counter}`);

  // Shown modal in the render that draws it (a layout effect; a plain one waits a frame): an Esc
  // or a Tab right after opening reaches the dialog, not the page behind it.
  useLayoutEffect(() => {
    const dlg = ref.current;
    if (!dlg) return;
    if (open && !dlg.open) {
      opener.current = document.activeElement;
      dlg.showModal();
    } else if (!open && dlg.open) {
      dlg.close();
    }
  }, [open]);

  useLayoutEffect(() => {
    const dlg = ref.current;
    if (!dlg) return undefined;
    const handleClose = () => {
      const back = opener.current;
      opener.current = null;
      // The close event comes a task after the dialog closed (and the browser may already have
      // put focus back): move focus only if it is still nowhere or in the dialog, so a late event
      // never takes focus from where the user has since moved it.
      const here = document.activeElement;
      const lost = !here || here === document.body || dlg.contains(here);
      if (lost && back && typeof back.focus === "function" && document.contains(back)) back.focus();
      onClose();
    };
    dlg.addEventListener("close", handleClose);
    return () => dlg.removeEventListener("close", handleClose);
  }, [onClose]);

  const onBackdrop = (e) => {
    if (e.target === ref.current) ref.current.close();
  };

  return html`<dialog
    ref=${ref}
    class=${`dialog ${wide ? "dialog-wide" : ""}`}
    aria-labelledby=${titleId.current}
    data-testid=${testid}
    onClick=${onBackdrop}
  >
    ${open &&
    html`<div class="dialog-inner">
      <header class="dialog-head">
        <h2 id=${titleId.current} class="dialog-title">${icon && html`<${Icon} name=${icon} size=${18} />`}${title}</h2>
        <button type="button" class="icon-btn" aria-label=${closeLabel} onClick=${() => ref.current.close()}>
          <${Icon} name="x" />
        </button>
      </header>
      <div class="dialog-body">${children}</div>
    </div>`}
  </dialog>`;
}
