// Types of flowbus.js, the FlowBus protocol over WebSocket.

/** The protocol version this client speaks. */
export declare const PROTOCOL_VERSION: 1;
/** The WebSocket subprotocol flowd's endpoint answers. */
export declare const SUBPROTOCOL: "flowbus.v1";

/** A JSON value. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** A step: a name and parameters. */
export interface Step {
  name: string;
  parameters: { [name: string]: JSONValue };
}

/** Makes a step: `step("movieIsPicked", {withId: 23452})`. */
export declare function step(name: string, parameters?: { [name: string]: JSONValue }): Step;

/** Why a step was dropped; flowd may add reasons, so any string may come. */
export type DropReason =
  | "notVisible"
  | "dismissed"
  | "unboundStepper"
  | "flowEnded"
  | "adaptedAway"
  | "unknownSession"
  | "deepLinkExpired"
  | "unhandled"
  | "queueFull"
  | "noneStep"
  | "sessionEnded"
  | "tooManySteps"
  | "invalidParameters"
  | (string & {});

/** A step's fate, as STEP_ACK carries it. */
export interface Fate {
  accepted: boolean;
  /** The flows that took it (accepted), or none. */
  flows: number[];
  reason?: DropReason;
  explanation?: string;
  remedy?: string;
  presentable?: number;
  flow?: number;
  parameter?: string;
}

/** An error: the specification's codes when flowd refused something, or this client's own. */
export declare class FlowBusError extends Error {
  readonly code:
    | "unreachable"
    | "invalidOptions"
    | "closed"
    | "queueFull"
    | "replaced"
    | "timedOut"
    | "commandDoesNotFit"
    | (string & {});
  /** What happened, in words. */
  readonly detail: string;
  /** The refused message's id, when flowd answered one. */
  readonly correlation?: number;
  /** The WebSocket close code, when flowd closed the connection for good. */
  readonly closeCode?: number;
}

/** What every role is given. */
export interface ConnectionOptions {
  /** flowd's WebSocket URL (`ws://127.0.0.1:5862/flowbus`); default: the endpoint that served flowbus.js. */
  url?: string;
  /** A fleet's instances' URLs, tried in turn. */
  urls?: string[];
  /** The connection's id; default `<session>/<name>`. */
  id?: string;
  /** The name in the session (a stepper's id in the flow file, a presenter's display); defaults by role. */
  name?: string;
  /** The session (required for steppers and presenters). */
  session?: string;
  /** The token flowd gave this id, when it asks for tokens. */
  token?: string;
  /** How long to wait for flowd's first WELCOME, in milliseconds (default 5000). */
  connectTimeout?: number;
  /** The most steps waiting for their fate (default 1000); beyond, `queueFull`. */
  maxWaiting?: number;
  /** Where the client says what it does (lost steps, resyncs). */
  log?: (line: string) => void;
  /** The WebSocket class to use (default: the global one). */
  WebSocket?: typeof WebSocket;
}

/** A presentable as the screens hold it. */
export interface ScreenNode {
  id: number;
  name: string;
  style: "screen" | "stack" | "tabs" | "split";
  parameters: { [name: string]: JSONValue };
  flow?: number;
  parent?: number;
  placement: "windowRoot" | "stackItem" | "tab" | "master" | "detail" | "modal";
  /** A stack's items (bottom first) or a tab container's tabs, by presentable id. */
  items: number[];
  /** The selected tab: an index into `items`. */
  selectedTab?: number;
  master?: number;
  detail?: number;
  /**
   * The modal presented over this presentable. A modal covers the whole window, as on a device: everything under
   * it, tab bars and back buttons included, is covered (`visible()` leaves it out).
   */
  presented?: number;
}

/** A command of a COMMANDS batch or a snapshot. */
export interface Command {
  op: "setWindowRoot" | "push" | "pop" | "present" | "dismiss" | "setTabs" | "selectTab" | "setMaster" | "setDetail";
  presentable?: { id: number; style: string; name: string; parameters?: { [name: string]: JSONValue }; flow?: number };
  container?: number;
  target?: number;
  tabs?: Array<{ id: number; style: string; name: string; parameters?: { [name: string]: JSONValue }; flow?: number }>;
  selected?: number;
  index?: number;
}

/** A presenter's screens as applied. */
export declare class ScreenTree {
  readonly nodes: Map<number, ScreenNode>;
  readonly root?: number;
  copy(): ScreenTree;
  get(id: number): ScreenNode | undefined;
  apply(command: Command): void;
  children(id: number): ScreenNode[];
  /** What the user sees, bottom first. */
  visible(): ScreenNode[];
  topmostVisibleScreen(): ScreenNode | undefined;
  visibleScreen(name: string): ScreenNode | undefined;
  toString(): string;
}

/** What a presenter's `update` event carries. */
export interface PresenterUpdate {
  /** A snapshot applied, a batch of commands applied, or the user's own change (dismissed, selectTab). */
  reason: "snapshot" | "navigation" | "user";
  commands: Command[];
  sequence: number;
  screens: ScreenTree;
  flow?: number;
  step?: Step;
}

export declare class Stepper extends EventTarget {
  static connect(options: ConnectionOptions & { session: string }): Promise<Stepper>;
  readonly id: string;
  readonly session: string;
  readonly name: string;
  readonly waitingSteps: number;
  emit(name: string, parameters?: { [name: string]: JSONValue }): Promise<Fate>;
  emit(step: Step): Promise<Fate>;
  deepLink(path: Step[]): Promise<Fate>;
  setSessionData(key: string, value: JSONValue): Promise<void>;
  close(): void;
}

export declare class Presenter extends EventTarget {
  static connect(
    options: ConnectionOptions & { session: string; reportsVisibility?: "auto" | "manual" },
  ): Promise<Presenter>;
  readonly id: string;
  readonly session: string;
  readonly name: string;
  readonly screens: ScreenTree;
  reportVisibility(): void;
  /** The user closed these screens (ids of screens on screen; otherwise it throws `commandDoesNotFit`). */
  dismissed(presentables: number[]): void;
  selectTab(tabs: number, index: number): void;
  emit(name: string, parameters: { [name: string]: JSONValue } | undefined, options: { from: number }): Promise<Fate>;
  emit(step: Step, parameters: undefined, options: { from: number }): Promise<Fate>;
  resync(): void;
  close(): void;
  addEventListener(type: "update", listener: (event: CustomEvent<PresenterUpdate>) => void): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void;
}

/** One batch of the inspection stream. */
export interface InspectionBatch {
  topic: string;
  session?: string;
  events: Array<{ kind: string; at: number; fields: { [name: string]: JSONValue } }>;
}

export declare class Inspector extends EventTarget {
  static connect(options?: ConnectionOptions): Promise<Inspector>;
  readonly id: string;
  query(what: string, args?: { [name: string]: JSONValue }): Promise<JSONValue>;
  watch(session?: string): void;
  unwatch(session?: string): void;
  emit(
    name: string | Step,
    parameters?: { [name: string]: JSONValue },
    options?: { session?: string; as?: number },
  ): Promise<Fate>;
  deepLink(path: Step[], options?: { session?: string }): Promise<Fate>;
  close(): void;
  addEventListener(type: "events", listener: (event: CustomEvent<InspectionBatch>) => void): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void;
}

/** A question flowd asks a guard. */
export interface GuardQuestion {
  question: number;
  guardName: string;
  subject: string;
  step: Step;
  deadline: number;
  session?: string;
}

export declare class Guard extends EventTarget {
  static connect(
    options: ConnectionOptions & { decide: (question: GuardQuestion) => boolean | Promise<boolean> },
  ): Promise<Guard>;
  close(): void;
}
