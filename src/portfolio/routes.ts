// GET /api/portfolio: the brands of every organization the caller belongs to (an API key: its
// organization; ?organization_id= one of them), with their numbers over ?from=YYYY-MM-DD&to=YYYY-MM-DD
// (default: the last 30 days); ?limit= caps the brands (at most 200).
import { Elysia } from "elysia";
import type { CallerResolver } from "../platform/auth/caller";
import type { PortfolioService } from "./service";

export function portfolioRoutes(deps: { portfolio: PortfolioService; callers: CallerResolver }) {
  const { portfolio, callers } = deps;
  return new Elysia().get("/api/portfolio", async ({ request, query }) => portfolio.get(await callers.apiUser(request), query));
}
