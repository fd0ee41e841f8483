// Popovers (the model picker, the strand filter, the demo badge) close the same way.
import { useLayoutEffect } from "preact/hooks";

/** Close a popover on Escape (focus back to its button) or on a click outside it. The keys are
 * listened to from the render that draws it (a layout effect): a plain effect waits a frame, and
 * an Esc pressed right after opening would be lost. */
export function usePopover(open, setOpen, wrapRef, buttonRef) {
  useLayoutEffect(() => {
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
