import { isSameOrigin } from "../auth/gate";
import { forwardToHolder, isNodeCall } from "../cluster/node-forward";
import { authenticate } from "../auth/session";
import { AtriumError, isAtriumError } from "../errors";
import type { Runtime } from "../engine/runtime";
import { getAuthContext, getRuntime } from "../engine/runtime-registry";
import { assertId } from "../store/ids";
import { isClientHangUp, quietRejectionsOf } from "./quiet-rejections";
import { errorResponse, json } from "./respond";

type Params = Record<string, string>;

export interface RouteContext<P extends Params> {
  request: Request;
  params: P;
  runtime: Runtime;
}

export interface RouteOptions {
  /** Ids in the path that are names, not ULIDs (the built-in machine `local`). */
  namedIds?: readonly string[];
}

/**
 * Wraps a route handler: checks the token, validates every id in the path, and turns
 * thrown errors into `{error: {code, message}}` answers. Handlers stay thin.
 */
export function apiRoute<P extends Params = Params>(handler: (context: RouteContext<P>) => Promise<Response> | Response, options: RouteOptions = {}) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      // DESIGN §10c: a call forwarded by another node of the cluster carries that node's signature instead.
      if (!(await isNodeCall(request))) authorize(request);
      const params = (await context.params) ?? ({} as P);
      for (const [name, value] of Object.entries(params)) {
        if (!options.namedIds?.includes(value)) assertId(value, name);
      }
      const runtime = getRuntime();
      const routed = await forwardToHolder(request, runtime);
      // Null first: naming Response at all would load undici, which a single node never needs.
      if (routed === null) return await handler({ request, params, runtime });
      if (routed instanceof Response) return routed;
      return await handler({ request: routed, params, runtime });
    } catch (error) {
      if (!isAtriumError(error) && isClientHangUp(error, request)) {
        quietRejectionsOf(getRuntime()).count("client_hung_up");
        return json({ error: { code: "bad_request", message: "the client closed the connection before the request was read" } }, 400);
      }
      return errorResponse(error);
    }
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The same decision as server.ts's gate, made again where the data is touched (DESIGN §10). */
export function authorize(request: Request): void {
  const header = (name: string) => request.headers.get(name);
  const auth = getAuthContext();
  const credential = authenticate(auth, { authorization: header("authorization"), cookie: header("cookie") });
  if (credential === null) throw new AtriumError("unauthorized", "a valid access token is required (Authorization: Bearer <token>)");
  if (credential === "cookie" && !SAFE_METHODS.has(request.method.toUpperCase())) {
    const headers = {
      host: header("host"),
      origin: header("origin"),
      "sec-fetch-site": header("sec-fetch-site"),
      "x-forwarded-host": header("x-forwarded-host"),
      "x-forwarded-proto": header("x-forwarded-proto"),
    };
    if (!isSameOrigin({ headers }, auth.trustProxy ?? false)) {
      throw new AtriumError("forbidden", "a write authenticated by the session cookie must come from Atrium's own pages");
    }
  }
}
