import type { Metadata, Viewport } from "next";
import { HydrationMarker } from "@/components/theme/hydration-marker";
import { ThemeProvider, themeBootScript } from "@/components/theme/theme-provider";
import { Toaster } from "@/components/ui/sonner";
import { TooltipProvider } from "@/components/ui/tooltip";
import "react-diff-view/style/index.css";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Atrium", template: "%s · Atrium" },
  description: "Self-hosted AI agent conversations",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#171717" },
  ],
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeBootScript }} />
      </head>
      <body>
        <ThemeProvider>
          <TooltipProvider>
            {children}
            <Toaster position="top-center" offset={{ top: 64 }} mobileOffset={{ top: 64 }} />
            <HydrationMarker />
          </TooltipProvider>
        </ThemeProvider>
      </body>
    </html>
  );
}
