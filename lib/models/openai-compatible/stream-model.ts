import type http from "node:http";
import { createRequire } from "node:module";
import { EmptyResponseBodyError, JSONParseError, type LanguageModelV3, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart, type LanguageModelV3StreamResult, type LanguageModelV3Usage } from "@ai-sdk/provider";
import { createParser } from "eventsource-parser";
import { isPlainChunk } from "./chunk-check";
import { ChunkMapper, type ParsedChunk } from "./chunk-parts";
import { bodyReadError, type ResponseContext } from "./network-error";
import { nodeBodyOf, nodeFetch } from "./node-fetch";

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
 * socket's data callback. The SDK reads the same stream through four web-stream stages, a
 * zod parse and several promises per delta.
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

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
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
    const stream = partStream(message, context, (emit) =>
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
      parts.chunkSchema,
    );
    return { stream, request: { body }, response: { headers: responseHeaders } };
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

const PART_QUEUE = 64;

/**
 * The parts of one response body. Chunks are handled in the socket's data callback, in order:
 * one that needs zod's (asynchronous) check holds the ones after it until it is done. The body
 * pauses while the reader is PART_QUEUE parts behind and resumes when it reads again.
 */
function partStream(
  message: http.IncomingMessage,
  context: ResponseContext,
  mapperFor: (emit: (part: LanguageModelV3StreamPart) => void) => ChunkMapper,
  schema: SdkChatModelParts["chunkSchema"],
): ReadableStream<LanguageModelV3StreamPart> {
  /** An error waits for the parts before it to be read: erroring a stream throws its queue away. */
  let failure: { error: unknown } | null = null;
  let sendFailure = () => {};
  return new ReadableStream<LanguageModelV3StreamPart>(
    {
      start(controller) {
        const mapper = mapperFor((part) => controller.enqueue(part));
        let waiting: Promise<void> | null = null;
        const inOrder = (step: () => void | Promise<void>) => {
          if (failure) return;
          const run = waiting ? waiting.then(step) : step();
          if (!run) return;
          const settled: Promise<void> = run.then(
            () => {
              if (waiting === settled) waiting = null;
            },
            (error: unknown) => fail(error),
          );
          waiting = settled;
        };
        sendFailure = () => {
          if (failure && controller.desiredSize === PART_QUEUE) controller.error(failure.error);
        };
        const fail = (error: unknown) => {
          if (failure) return;
          failure = { error };
          message.destroy();
          sendFailure();
        };
        const parser = createParser({
          onEvent: ({ data }) => {
            if (data === "[DONE]") return;
            inOrder(() => {
              const parsed = parseChunk(data, schema);
              if (!(parsed instanceof Promise)) return mapper.chunk(parsed);
              return parsed.then((chunk) => mapper.chunk(chunk));
            });
          },
        });
        message.setEncoding("utf8");
        message.on("data", (text: string) => {
          try {
            parser.feed(text);
          } catch (error) {
            return fail(error);
          }
          if ((controller.desiredSize ?? 1) <= 0) message.pause();
        });
        message.once("end", () =>
          inOrder(() => {
            mapper.end();
            controller.close();
          }),
        );
        message.once("error", (error) => inOrder(() => fail(bodyReadError(error, context))));
      },
      pull() {
        sendFailure();
        if (message.isPaused()) message.resume();
      },
      cancel() {
        message.destroy();
      },
    },
    { highWaterMark: PART_QUEUE },
  );
}
