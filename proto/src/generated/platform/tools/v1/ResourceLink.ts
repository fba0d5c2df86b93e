// Original file: platform/tools/v1/tool_service.proto

import type { Long } from '@grpc/proto-loader';

/**
 * MCP `resource_link`: a resource the client may read elsewhere.
 */
export interface ResourceLink {
  'uri'?: (string);
  'name'?: (string);
  'title'?: (string);
  'description'?: (string);
  'mimeType'?: (string);
  /**
   * Its size in bytes; 0 when unknown.
   */
  'size'?: (number | string | Long);
}

/**
 * MCP `resource_link`: a resource the client may read elsewhere.
 */
export interface ResourceLink__Output {
  'uri': (string);
  'name': (string);
  'title': (string);
  'description': (string);
  'mimeType': (string);
  /**
   * Its size in bytes; 0 when unknown.
   */
  'size': (string);
}
