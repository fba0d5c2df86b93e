// Original file: platform/tools/v1/tool_service.proto


/**
 * An image or a sound: its bytes (the gateway sends them to the client as base64) and MIME type.
 */
export interface MediaContent {
  'data'?: (Buffer | Uint8Array | string);
  'mimeType'?: (string);
}

/**
 * An image or a sound: its bytes (the gateway sends them to the client as base64) and MIME type.
 */
export interface MediaContent__Output {
  'data': (Buffer);
  'mimeType': (string);
}
