"""The static site and the one origin: a private S3 bucket behind CloudFront, with the APIs routed in.

The browser talks to a single CloudFront domain: `/` serves web/ from S3 (origin access control,
the bucket itself stays private), `/api/ws` goes to the WebSocket API (a CloudFront Function
rewrites the path to the API's stage, since WebSocket APIs take no path), and `/api/*` (with
`/sign-in` and the MCP server's `/mcp`) goes to the HTTP API. One origin means the session cookie
reaches both APIs and no CORS is needed. Every request CloudFront sends the APIs carries the
stack's origin secret, which the functions check (infra/secrets.py `OriginSecret`).
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from infra.config import StageConfig

WS_PATH = "/api/ws"
API_PATH = "/api/*"
# The MCP server (streamable HTTP) lives beside the API, in the same function.
MCP_PATH = "/mcp"
# The API's own sign-in page (its 401 answers point there); the UI ships sign-in.html as well.
SIGN_IN_PATH = "/sign-in"
# What web/ holds for development only.
WEB_EXCLUDES = [".gitkeep", "tests/*", "package.json", "*.test.mjs"]

# Viewer-request functions (cloudfront-js-2.0). The API sees the viewer's host in
# x-forwarded-host (CloudFront must send the API's own Host), which the origin guard compares.
_FORWARD_HOST_JS = """function handler(event) {
  var request = event.request;
  if (request.headers.host) {
    request.headers['x-forwarded-host'] = { value: request.headers.host.value };
  }
  return request;
}"""
_WS_PATH_JS = """function handler(event) {
  var request = event.request;
  if (request.headers.host) {
    request.headers['x-forwarded-host'] = { value: request.headers.host.value };
  }
  request.uri = '/%s';
  return request;
}"""


class StaticSite(Construct):
    """Bucket + distribution + deployment of web/."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: StageConfig,
        http_api_domain: str,
        ws_api_domain: str,
        ws_stage: str,
        origin_headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.origin_headers = origin_headers or {}
        self.bucket = s3.Bucket(
            self,
            "Web",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            removal_policy=RemovalPolicy.DESTROY,
            auto_delete_objects=True,
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Cdn",
            comment=f"Previously ({config.name})",
            default_root_object="index.html",
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=cloudfront.ResponseHeadersPolicy.SECURITY_HEADERS,
            ),
            additional_behaviors={
                # Order matters: the WebSocket path must win over the /api/* pattern.
                WS_PATH: self._api_behavior(ws_api_domain, "WsPath", _WS_PATH_JS % ws_stage),
                API_PATH: self._api_behavior(http_api_domain, "ForwardHost", _FORWARD_HOST_JS),
                SIGN_IN_PATH: self._api_behavior(http_api_domain, "ForwardHostSignIn", _FORWARD_HOST_JS),
                MCP_PATH: self._api_behavior(http_api_domain, "ForwardHostMcp", _FORWARD_HOST_JS),
            },
        )
        s3deploy.BucketDeployment(
            self,
            "Deploy",
            sources=[s3deploy.Source.asset(str(config.web_dir), exclude=WEB_EXCLUDES)],
            destination_bucket=self.bucket,
            # Revalidate on every load (cheap 304s) and invalidate the edge on every deploy,
            # so a new web/ is what the next page load gets.
            cache_control=[s3deploy.CacheControl.no_cache()],
            distribution=self.distribution,
            distribution_paths=["/*"],
            prune=True,
        )

    def _api_behavior(self, domain: str, fn_id: str, code: str) -> cloudfront.BehaviorOptions:
        function = cloudfront.Function(
            self,
            fn_id,
            code=cloudfront.FunctionCode.from_inline(code),
            runtime=cloudfront.FunctionRuntime.JS_2_0,
        )
        return cloudfront.BehaviorOptions(
            # The origin headers (the origin secret) replace any a viewer sends under the same name.
            origin=origins.HttpOrigin(
                domain,
                protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
                custom_headers=self.origin_headers,
            ),
            viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
            allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
            cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
            # Cookies, query strings and every header but Host (API Gateway routes on its own Host).
            origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
            function_associations=[
                cloudfront.FunctionAssociation(
                    function=function, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST
                )
            ],
        )

    @property
    def domain(self) -> str:
        """The distribution's host name: the public host the API functions answer to."""
        return self.distribution.distribution_domain_name

    @property
    def url(self) -> str:
        return f"https://{self.distribution.distribution_domain_name}"
