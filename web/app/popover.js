// Popovers (the model picker, the strand filter, the demo badge) close the same way.
import { useEffect } from "preact/hooks";

/** Close a popover on Escape (focus back to its button) or on a click outside it. */
export function usePopover(open, setOpen, wrapRef, buttonRef) {
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        setOpen(false);
        buttonRef.current && buttonRef.current.focus();
      }
    };
    const onDown = (e) => {
      if (wrapRef.current && !wrapRef.current.contains(e.target)) setOpen(false);
    };
    document.addEventListener("keydown", onKey, true);
    document.addEventListener("mousedown", onDown);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      document.removeEventListener("mousedown", onDown);
    };
  }, [open]);
}
