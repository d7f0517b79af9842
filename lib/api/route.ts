import { isAuthorized } from "../auth/session";
import { AtriumError } from "../errors";
import type { Runtime } from "../engine/runtime";
import { getAccessToken, getRuntime } from "../engine/runtime-registry";
import { assertId } from "../store/ids";
import { errorResponse } from "./respond";

type Params = Record<string, string>;

export interface RouteContext<P extends Params> {
  request: Request;
  params: P;
  runtime: Runtime;
}

/**
 * Wraps a route handler: checks the token, validates every id in the path, and turns
 * thrown errors into `{error: {code, message}}` answers. Handlers stay thin.
 */
export function apiRoute<P extends Params = Params>(handler: (context: RouteContext<P>) => Promise<Response> | Response) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      authorize(request);
      const params = (await context.params) ?? ({} as P);
      for (const [name, value] of Object.entries(params)) assertId(value, name);
      return await handler({ request, params, runtime: getRuntime() });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

export function authorize(request: Request): void {
  const allowed = isAuthorized(getAccessToken(), {
    authorization: request.headers.get("authorization"),
    cookie: request.headers.get("cookie"),
  });
  if (!allowed) throw new AtriumError("unauthorized", "a valid access token is required (Authorization: Bearer <token>)");
}
