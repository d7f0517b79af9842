"use client";

import { memo, useRef } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import type { Element } from "hast";
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

/** The fence's language (```ts → "ts"), read from the class remark gives the inner <code>. */
function fenceLanguage(node: Element | undefined): string | null {
  const code = node?.children.find((child): child is Element => child.type === "element" && child.tagName === "code");
  const classes = code?.properties.className;
  const names = Array.isArray(classes) ? classes.map(String) : [];
  const language = names.find((name) => name.startsWith("language-"));
  return language ? language.slice("language-".length) : null;
}

/** A cell holding a sentence rather than a value gets room to read it (the others keep to their content). */
function isProse(node: Element | undefined): boolean {
  const text = (node?.children ?? []).map((child) => (child.type === "text" ? child.value : "")).join("");
  return text.length > 40;
}

function CodeBlock({ children, language, ...props }: React.ComponentProps<"pre"> & { language: string | null }) {
  const ref = useRef<HTMLPreElement>(null);
  return (
    <figure className="code-block group/code" data-language={language ?? undefined}>
      <figcaption className="flex h-8 items-center justify-between gap-2 border-b pr-1 pl-3 font-sans text-xs text-muted-foreground">
        <span>{language ?? "text"}</span>
        <CopyButton label="Copy code" getText={() => ref.current?.textContent ?? ""} className="opacity-60 transition-opacity group-hover/code:opacity-100 focus-visible:opacity-100" />
      </figcaption>
      <pre ref={ref} {...props}>
        {children}
      </pre>
    </figure>
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
  td({ node, ...props }) {
    return <td {...props} className={cn(props.className, isProse(node) && "prose-cell")} />;
  },
  pre({ node, ...props }) {
    return <CodeBlock language={fenceLanguage(node)} {...props} />;
  },
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false }] as [typeof rehypeHighlight, { detect: boolean }]];

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={cn("markdown", className)} data-find-text="">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} urlTransform={safeUrl} components={components} skipHtml>
        {text}
      </ReactMarkdown>
    </div>
  );
});
