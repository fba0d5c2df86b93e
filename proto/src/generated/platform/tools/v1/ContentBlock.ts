// Original file: platform/tools/v1/tool_service.proto

import type { MediaContent as _platform_tools_v1_MediaContent, MediaContent__Output as _platform_tools_v1_MediaContent__Output } from '../../../platform/tools/v1/MediaContent.ts';
import type { ResourceLink as _platform_tools_v1_ResourceLink, ResourceLink__Output as _platform_tools_v1_ResourceLink__Output } from '../../../platform/tools/v1/ResourceLink.ts';
import type { EmbeddedResource as _platform_tools_v1_EmbeddedResource, EmbeddedResource__Output as _platform_tools_v1_EmbeddedResource__Output } from '../../../platform/tools/v1/EmbeddedResource.ts';
import type { Annotations as _platform_tools_v1_Annotations, Annotations__Output as _platform_tools_v1_Annotations__Output } from '../../../platform/tools/v1/Annotations.ts';

/**
 * One MCP content block.
 */
export interface ContentBlock {
  'text'?: (string);
  'image'?: (_platform_tools_v1_MediaContent | null);
  'audio'?: (_platform_tools_v1_MediaContent | null);
  'resourceLink'?: (_platform_tools_v1_ResourceLink | null);
  'resource'?: (_platform_tools_v1_EmbeddedResource | null);
  'annotations'?: (_platform_tools_v1_Annotations | null);
  'block'?: "text"|"image"|"audio"|"resourceLink"|"resource";
}

/**
 * One MCP content block.
 */
export interface ContentBlock__Output {
  'text'?: (string);
  'image'?: (_platform_tools_v1_MediaContent__Output | null);
  'audio'?: (_platform_tools_v1_MediaContent__Output | null);
  'resourceLink'?: (_platform_tools_v1_ResourceLink__Output | null);
  'resource'?: (_platform_tools_v1_EmbeddedResource__Output | null);
  'annotations': (_platform_tools_v1_Annotations__Output | null);
  'block'?: "text"|"image"|"audio"|"resourceLink"|"resource";
}
