import { render } from "preact";
import { App } from "./app";
import { readUrlSettings } from "./settings";
import "./styles.css";

readUrlSettings(location.search);
render(<App />, document.getElementById("app")!);
