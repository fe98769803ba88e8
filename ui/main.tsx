import { render } from "preact";
import { App } from "./app.tsx";
import { registerServiceWorker } from "./offline/status.ts";

render(<App />, document.getElementById("app")!);
registerServiceWorker();
