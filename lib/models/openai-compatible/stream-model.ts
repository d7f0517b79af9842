import { createRequire } from "node:module";
import { EmptyResponseBodyError, JSONParseError, type LanguageModelV3, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart, type LanguageModelV3Usage } from "@ai-sdk/provider";
import type { PushableStreamResult } from "../pushed-parts";
import { isPlainChunk } from "./chunk-check";
import { ChunkMapper, type ParsedChunk } from "./chunk-parts";
import type { ResponseContext } from "./network-error";
import { nodeBodyOf, nodeFetch } from "./node-fetch";
import { ResponseParts } from "./response-parts";

/*
 * Loaded on the first model built, like the providers themselves (registry.ts): a server that
 * uses no OpenAI-compatible model never loads it.
 */
const requirePackage = createRequire(import.meta.url);
type ProviderUtils = typeof import("@ai-sdk/provider-utils");
let loadedUtils: ProviderUtils | null = null;
function providerUtils(): ProviderUtils {
  return (loadedUtils ??= requirePackage("@ai-sdk/provider-utils") as ProviderUtils);
}

/** The parts of the SDK's chat model this one reuses: everything but the reading of the stream. */
interface SdkChatModelParts {
  getArgs(options: LanguageModelV3CallOptions): Promise<{ args: Record<string, unknown>; warnings: unknown[]; metadataKey: string }>;
  transformRequestBody(args: Record<string, unknown>, warnings: unknown[]): Record<string, unknown>;
  convertUsage(usage: unknown): LanguageModelV3Usage;
  failedResponseHandler: Parameters<ProviderUtils["postJsonToApi"]>[0]["failedResponseHandler"];
  chunkSchema: Parameters<ProviderUtils["safeValidateTypes"]>[0]["schema"];
  config: {
    url(options: { path: string; modelId: string }): string;
    headers(): Record<string, string | undefined>;
    includeUsage?: boolean;
    metadataExtractor?: { createStreamExtractor(): ConstructorParameters<typeof ChunkMapper>[0]["metadataExtractor"] };
  };
}

function sdkParts(model: LanguageModelV3): SdkChatModelParts {
  const parts = model as unknown as SdkChatModelParts;
  const missing = ["getArgs", "transformRequestBody", "convertUsage"].filter((name) => typeof (parts as unknown as Record<string, unknown>)[name] !== "function");
  if (missing.length > 0 || !parts.config || !parts.failedResponseHandler || !parts.chunkSchema) {
    throw new Error(`@ai-sdk/openai-compatible's chat model has changed shape (missing ${missing.join(", ") || "config"}); check lib/models/openai-compatible against it`);
  }
  return parts;
}

/**
 * An OpenAI-compatible chat model (a LanguageModelV3, usable by streamText as any provider's)
 * that is @ai-sdk/openai-compatible's own for the request (its arguments, headers, body,
 * generate and error answers) but reads the streamed answer itself: the body as Node chunks,
 * eventsource-parser's parser fed directly, each chunk checked cheaply (the SDK's zod schema
 * where the cheap check is not sure) and mapped to parts as the SDK maps them, all in the
 * socket's data callback, and handed to a reader that takes them pushed (`pushParts`, the
 * engine) or to the result's web stream. The SDK reads the same stream through four
 * web-stream stages, a zod parse and several promises per delta.
 */
export class OpenAICompatibleStreamModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  private readonly parts: SdkChatModelParts;

  /** `sdkModel`: a chat model of @ai-sdk/openai-compatible (its `chatModel(id)`). */
  constructor(private readonly sdkModel: LanguageModelV3) {
    this.parts = sdkParts(sdkModel);
  }

  get provider(): string {
    return this.sdkModel.provider;
  }

  get modelId(): string {
    return this.sdkModel.modelId;
  }

  get supportedUrls() {
    return this.sdkModel.supportedUrls;
  }

  doGenerate(options: LanguageModelV3CallOptions) {
    return this.sdkModel.doGenerate(options);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<PushableStreamResult> {
    const { postJsonToApi, combineHeaders, extractResponseHeaders } = providerUtils();
    const parts = this.parts;
    const { args, warnings, metadataKey } = await parts.getArgs({ ...options });
    const streamOptions = parts.config.includeUsage ? { include_usage: true } : undefined;
    const body = parts.transformRequestBody({ ...args, stream: true, stream_options: streamOptions }, warnings);
    const url = parts.config.url({ path: "/chat/completions", modelId: this.modelId });
    const { responseHeaders, value: message } = await postJsonToApi({
      url,
      headers: combineHeaders(parts.config.headers(), options.headers),
      body,
      failedResponseHandler: parts.failedResponseHandler,
      successfulResponseHandler: async ({ response }) => {
        const nodeBody = nodeBodyOf(response);
        if (!nodeBody) throw new EmptyResponseBodyError({});
        return { responseHeaders: extractResponseHeaders(response), value: nodeBody };
      },
      abortSignal: options.abortSignal,
      fetch: nodeFetch,
    });
    const context: ResponseContext = { url, requestBodyValues: body, statusCode: message.statusCode ?? 200, responseHeaders: responseHeaders ?? {} };
    const responseParts = new ResponseParts({
      message,
      context,
      mapperFor: (emit) =>
        new ChunkMapper(
          {
            emit,
            metadataKey,
            includeRawChunks: options.includeRawChunks === true,
            convertUsage: (usage) => parts.convertUsage(usage),
            metadataExtractor: parts.config.metadataExtractor?.createStreamExtractor(),
            newToolCallTracker: (controller, trackerOptions) => new (providerUtils().StreamingToolCallTracker)(controller as never, trackerOptions),
            generateId: providerUtils().generateId,
          },
          warnings,
        ),
      parse: (data) => parseChunk(data, parts.chunkSchema),
    });
    let stream: ReadableStream<LanguageModelV3StreamPart> | null = null;
    // The web stream is made when it is asked for: a reader that takes the parts pushed never pays for one.
    return {
      get stream() {
        return (stream ??= responseParts.stream());
      },
      pushParts: (sink) => responseParts.push(sink),
      request: { body },
      response: { headers: responseHeaders },
    };
  }
}

/** One data field of the event stream as the SDK's safeParseJSON answers it; a promise only when zod has to look. */
function parseChunk(text: string, schema: SdkChatModelParts["chunkSchema"]): ParsedChunk | Promise<ParsedChunk> {
  const { secureJsonParse, safeValidateTypes } = providerUtils();
  let value: unknown;
  try {
    value = secureJsonParse(text);
  } catch (error) {
    return { success: false, error: JSONParseError.isInstance(error) ? error : new JSONParseError({ text, cause: error }), rawValue: undefined };
  }
  if (isPlainChunk(value)) return { success: true, value, rawValue: value };
  return safeValidateTypes({ value, schema }) as Promise<ParsedChunk>;
}
