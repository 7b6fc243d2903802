// Types for onnxProto.mjs (used by tests that build tiny ONNX models).
export declare class Msg {
  size: number;
  toBytes(): Uint8Array;
}
export declare const DataType: { FLOAT: 1; UINT8: 2; INT8: 3; INT32: 6; INT64: 7; BOOL: 9 };
export declare function tensor(name: string, dataType: number, dims: number[], data: ArrayBufferView): Msg;
export declare function node(opType: string, inputs: string[], outputs: string[], name: string, attrs?: Record<string, unknown>): Msg;
export declare function valueInfo(name: string, elemType: number, dims: (number | string)[]): Msg;
export declare function graph(g: { name: string; nodes: Msg[]; initializers: Msg[]; inputs: Msg[]; outputs: Msg[] }): Msg;
export declare function model(m: { graph: Msg; opset: number; producer: { name: string; version: string }; docString: string; metadata?: Record<string, string> }): Uint8Array;
