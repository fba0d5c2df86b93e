// What the stack knows of each process it runs: where it listens, how it is known to be ready,
// what it is given and what it serves. processes.ts and gateway-replicas.ts build them; the runner runs them.

/** A port a process listens on, and the variable that moves it. */
export interface Listener {
  readonly host: string;
  readonly port: number;
  readonly variable: string;
}

export type ReadyProbe =
  /** Ready when GET `url` answers 200. */
  | { readonly kind: 'http'; readonly url: string }
  /** Ready when the gateway lists tools to a person (the tool service has registered and been listed). */
  | { readonly kind: 'tools'; readonly mcpUrl: string; readonly platformUrl: string; readonly person: string };

/** A program other than Node, run with its arguments. */
export interface ProgramLine {
  readonly command: string;
  readonly args: readonly string[];
}

export interface StackProcess {
  /** The prefix of its output, and its name in messages. */
  readonly name: string;
  /** The file Node runs; or the command line of another program (haproxy). */
  readonly entry: string | ProgramLine;
  /** A file it reads, written before it starts (haproxy's configuration, generated from the ports). */
  readonly writes?: { readonly path: string; readonly text: string };
  /** Its variables (the secrets it needs among them, and only those), on top of the environment the stack was started with. */
  readonly env: Readonly<Record<string, string>>;
  readonly listens: readonly Listener[];
  readonly ready: ReadyProbe;
  /** What it serves, for the banner. */
  readonly serves: string;
}
