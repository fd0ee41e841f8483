// A page loaded when it is first shown, so the first load stays small (bench/bench_web.py budget).
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";

/** A component that imports `name` from the module `load()` brings, then renders it with the props. */
export function lazy(load, name) {
  let loaded = null;
  return function Lazy(props) {
    const [Page, setPage] = useState(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Page) return;
      load().then(
        (m) => {
          loaded = m[name];
          setPage(() => loaded);
        },
        () => setFailed(true),
      );
    }, [Page, failed]);
    if (Page) return html`<${Page} ...${props} />`;
    if (failed) {
      return html`<p class="empty-state" role="alert">${props.t("common.pageFailed")}</p>
        <button type="button" class="ghost-btn" onClick=${() => setFailed(false)}>${props.t("common.retry")}</button>`;
    }
    return html`<div class="wheel-loading" aria-busy="true">
      <${Icon} name="loader-circle" class="spin" size=${20} label=${props.t("common.loading")} />
    </div>`;
  };
}
