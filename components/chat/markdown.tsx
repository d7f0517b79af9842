"use client";

import { memo, useRef } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { cn } from "@/lib/utils";
import { CopyButton } from "./copy-button";

/**
 * Model output is untrusted (DESIGN §10): react-markdown renders no raw HTML, unsafe
 * URL schemes (javascript:, data:, vbscript:) are dropped and such links render as
 * plain text, links open in a new tab without an opener, and images are not fetched.
 */
function safeUrl(url: string): string {
  return defaultUrlTransform(url.trim());
}

function CodeBlock({ children, ...props }: React.ComponentProps<"pre">) {
  const ref = useRef<HTMLPreElement>(null);
  return (
    <div className="group/code relative">
      <pre ref={ref} {...props}>
        {children}
      </pre>
      <CopyButton
        label="Copy code"
        getText={() => ref.current?.textContent ?? ""}
        className="absolute top-1.5 right-1.5 bg-background/80 opacity-0 backdrop-blur transition-opacity group-hover/code:opacity-100 focus-visible:opacity-100"
      />
    </div>
  );
}

const components: Components = {
  a({ href, children, node: _node, ...props }) {
    if (!href) {
      return (
        <span className="text-muted-foreground underline decoration-dotted" title="Link removed: its address is not safe to open">
          {children}
        </span>
      );
    }
    return (
      <a {...props} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const address = typeof src === "string" ? src : "";
    if (!address) return <span className="text-muted-foreground">[image{alt ? `: ${alt}` : ""}]</span>;
    return (
      <a href={address} target="_blank" rel="noopener noreferrer nofollow">
        [image{alt ? `: ${alt}` : ""}]
      </a>
    );
  },
  pre({ node: _node, ...props }) {
    return <CodeBlock {...props} />;
  },
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false }] as [typeof rehypeHighlight, { detect: boolean }]];

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={cn("markdown", className)}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} urlTransform={safeUrl} components={components} skipHtml>
        {text}
      </ReactMarkdown>
    </div>
  );
});
